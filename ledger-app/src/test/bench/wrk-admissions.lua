-- wrk script for wrk-admissions.sh: POST /v1/sessions/{id}/calls round robin over the sessions listed in a file,
-- every requestId new (the phase name, wrk's thread number and a counter), as an edge asks before each tools/call.
-- With CALL sessionless the file lists client tokens (SHA-256 hex) instead, and each call is POST /v1/calls (MCP
-- 2026-07-28, contract section 15) round robin over those clients, from edge wrk-edge-THREAD of incarnation RUN.
--   wrk ... -s wrk-admissions.lua URL -- SESSIONS_FILE EDGE_TOKEN CLIENT_TOKEN_SHA256 PHASE
--   wrk ... -s wrk-admissions.lua URL -- CLIENTS_FILE EDGE_TOKEN RUN PHASE sessionless
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
  sessionless = args[5] == "sessionless"
  headers = {
    ["Authorization"] = "Bearer " .. args[2],
    ["Client-Token-Sha256"] = args[3],
    ["Content-Type"] = "application/json",
  }
  prefix = args[4] .. "-" .. tostring(thread_id) .. "-"
  caller = '"principal":"alice","serverId":"pricing","protocolVersion":"2026-07-28",'
    .. '"edge":{"id":"wrk-edge-' .. tostring(thread_id) .. '","incarnation":"' .. args[3] .. '"},'
  sent = 0
end

local call = '"server":"pricing","tool":"quote","operation":"invoke",'
  .. '"argumentsSha256":"6e54eb4db06981d40a5be0924babc21ec26c2207f8ee25aa5ddb1bb889a0be90"}'

function request()
  sent = sent + 1
  local pick = sessions[(sent + thread_id) % #sessions + 1]
  local start = '{"requestId":"' .. prefix .. sent .. '",'
  if sessionless then
    headers["Client-Token-Sha256"] = pick
    return wrk.format("POST", "/v1/calls", headers, start .. caller .. call)
  end
  return wrk.format("POST", "/v1/sessions/" .. pick .. "/calls", headers, start .. call)
end
