// error: static property 'eight' requires the types '(Bool, Int, Int, Int, Int, Int, Int)' and '(Bool, Int8, UInt16, Int32, UInt64, Float, Double, Int)' be equivalent
try table.execute(.eight, true, 1, 2, 3, 4, 5, 6)
