-- allocates without bound: stopped by the job's memory limit
local t = {}
for i = 1, 1e9 do t[i] = string.rep("x", 4096) .. i end
