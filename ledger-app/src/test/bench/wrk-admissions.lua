-- wrk script for wrk-admissions.sh: POST /v1/sessions/{id}/calls round robin over the sessions listed in a file,
-- every requestId new (the phase name, wrk's thread number and a counter), as an edge asks before each tools/call.
--   wrk ... -s wrk-admissions.lua URL -- SESSIONS_FILE EDGE_TOKEN CLIENT_TOKEN_SHA256 PHASE
local threads = 0

function setup(thread)
  threads = threads + 1
  thread:set("thread_id", threads)
end

function init(args)
  sessions = {}
  for line in io.lines(args[1]) do
    sessions[#sessions + 1] = line
  end
  headers = {
    ["Authorization"] = "Bearer " .. args[2],
    ["Client-Token-Sha256"] = args[3],
    ["Content-Type"] = "application/json",
  }
  prefix = args[4] .. "-" .. tostring(thread_id) .. "-"
  sent = 0
end

function request()
  sent = sent + 1
  local session = sessions[(sent + thread_id) % #sessions + 1]
  local body = '{"requestId":"' .. prefix .. sent .. '","server":"pricing","tool":"quote","operation":"invoke",'
    .. '"argumentsSha256":"6e54eb4db06981d40a5be0924babc21ec26c2207f8ee25aa5ddb1bb889a0be90"}'
  return wrk.format("POST", "/v1/sessions/" .. session .. "/calls", headers, body)
end
