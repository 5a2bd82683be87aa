// error: cannot convert value of type 'String' to expected argument type 'Bool'
try table.execute(.toggle, "yes")
