// error: cannot convert value of type 'String' to expected argument type 'Int'
try table.execute(.rename, "intro", "three")
