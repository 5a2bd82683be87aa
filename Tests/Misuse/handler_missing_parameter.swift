// error: no exact matches in call to instance method 'on'
table.on(.rename) { title in print(title) }.cancel()
