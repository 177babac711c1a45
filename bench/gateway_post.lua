-- wrk script: a small non-streaming chat completion POST.
-- TOKEN (optional) is sent as x-ploy-token.
wrk.method = "POST"
wrk.body = '{"model":"bench","messages":[{"role":"user","content":"hi"}]}'
wrk.headers["Content-Type"] = "application/json"
local token = os.getenv("TOKEN")
if token and token ~= "" then
  wrk.headers["x-ploy-token"] = token
end
