// error: no exact matches in call to instance method 'execute'
try table.execute(.rename, "intro")
