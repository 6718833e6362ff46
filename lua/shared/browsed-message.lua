--[[
  Put by the loader (lib/scripts/script-files.ts) before every script that lists messages as the
  dashboard, peekMessages and browseMessagesAsync read them (messagePage, findMessages,
  browseMessages).

  messageFields(queueHash, id): HMGET of the message's body, `:rc`, `:fr`, `:dl` and `:at`.
  appendMessage(reply, id, fields, score, cutAt, withAttributes): appends the seven items of one
    message to `reply`: id, body (cut to cutAt bytes; 0: whole), body length in bytes, score,
    receive count ("0": never), first receive (false: never) and the `:dl` JSON (false: none); with
    `withAttributes` an eighth, the `:at` JSON (false: none). lib/operations/browse-messages.ts
    reads them in that order.
]]
local function messageFields(queueHash, id)
  return redis.call("HMGET", queueHash, id, id .. ":rc", id .. ":fr", id .. ":dl", id .. ":at")
end

local function appendMessage(reply, id, fields, score, cutAt, withAttributes)
  local body = fields[1] or ""
  reply[#reply + 1] = id
  if cutAt > 0 and #body > cutAt then
    reply[#reply + 1] = string.sub(body, 1, cutAt)
  else
    reply[#reply + 1] = body
  end
  reply[#reply + 1] = #body
  reply[#reply + 1] = score
  -- A nil inside a Lua table would cut the reply short there: false travels as a nil reply.
  reply[#reply + 1] = fields[2] or "0"
  reply[#reply + 1] = fields[3] or false
  reply[#reply + 1] = fields[4] or false
  if withAttributes then
    reply[#reply + 1] = fields[5] or false
  end
end
