#!/usr/bin/python3
"""A scripted OpenAI-compatible chat-completions server for the agent tests (loopback only).

usage: mock_llm.py SCRIPT.json PORT_FILE LOG.jsonl

Every POST to .../chat/completions takes the next entry of SCRIPT["responses"]:
  {"expect": {...}, "status": 200, "headers": {...}, "delay": seconds, "reply": {...} | "body": {...}}
"reply" is shorthand for a chat completion: {"content": str, "tool_calls": [[id, name, arguments]],
"usage": [prompt_tokens, completion_tokens], "finish_reason": str}; arguments is an object (sent as
JSON text) or a string (sent as is, so malformed JSON can be scripted).
"expect" checks the request before replying (failures are logged, the reply is still sent):
  "tool_results": [{"id": ..., "contains": [...], "not_contains": [...]}]  a tool message answering
                  that tool_call_id exists and its content contains / lacks the texts
  "last_role": "tool" | "user"      the role of the last message
  "any_contains": [...]              some message's content contains each text
  "none_contains": [...]             no message's content contains any of the texts
  "max_messages": N                  at most N messages (compaction)
The script may also hold "model" and "auth" (the expected Authorization header value).
Each request is logged as one JSON line {"index", "path", "auth", "body", "failures"}.
"""
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

script = json.load(open(sys.argv[1]))
port_file, log_path = sys.argv[2], sys.argv[3]
lock = threading.Lock()
state = {"next": 0}


def content_of(m):
    c = m.get("content")
    if isinstance(c, list):  # content parts
        return "".join(p.get("text", "") for p in c if isinstance(p, dict))
    return c or ""


def check(expect, req, auth):
    failures = []
    msgs = req.get("messages", [])
    if "model" in script and req.get("model") != script["model"]:
        failures.append("model %r, expected %r" % (req.get("model"), script["model"]))
    if "auth" in script and auth != script["auth"]:
        failures.append("Authorization %r, expected %r" % (auth, script["auth"]))
    names = {t.get("function", {}).get("name") for t in req.get("tools", [])}
    for n in ("list_windows", "show_window", "propose_edit", "evaluate", "history", "note", "isa_help", "show_kernel_info"):
        if n not in names:
            failures.append("tool %s is not offered" % n)
    # Every tool call of an assistant message is answered by a tool message (the API requires it).
    answered = {m.get("tool_call_id") for m in msgs if m.get("role") == "tool"}
    for m in msgs:
        for tc in m.get("tool_calls") or []:
            if tc.get("id") not in answered:
                failures.append("tool call %s has no tool result" % tc.get("id"))
    for tr in expect.get("tool_results", []):
        found = [m for m in msgs if m.get("role") == "tool" and m.get("tool_call_id") == tr["id"]]
        if not found:
            failures.append("no tool result for %s" % tr["id"])
            continue
        text = content_of(found[-1])
        for c in tr.get("contains", []):
            if c not in text:
                failures.append("tool result %s lacks %r: %s" % (tr["id"], c, text[:300]))
        for c in tr.get("not_contains", []):
            if c in text:
                failures.append("tool result %s contains %r: %s" % (tr["id"], c, text[:300]))
    if "last_role" in expect and (not msgs or msgs[-1].get("role") != expect["last_role"]):
        failures.append("last role %r, expected %r" % (msgs[-1].get("role") if msgs else None, expect["last_role"]))
    alltext = "\n".join(content_of(m) for m in msgs)
    for c in expect.get("any_contains", []):
        if c not in alltext:
            failures.append("no message contains %r" % c)
    for c in expect.get("none_contains", []):
        if c in alltext:
            failures.append("a message contains %r" % c)
    if "max_messages" in expect and len(msgs) > expect["max_messages"]:
        failures.append("%d messages, expected at most %d" % (len(msgs), expect["max_messages"]))
    return failures


def completion(reply):
    calls = []
    for cid, name, args in reply.get("tool_calls", []):
        calls.append({"id": cid, "type": "function",
                      "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)}})
    msg = {"role": "assistant", "content": reply.get("content")}
    if calls:
        msg["tool_calls"] = calls
    p, c = reply.get("usage", [100, 20])
    return {"id": "chatcmpl-test", "object": "chat.completion", "model": script.get("model", "mock"),
            "choices": [{"index": 0, "message": msg, "finish_reason": reply.get("finish_reason", "tool_calls" if calls else "stop")}],
            "usage": {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        auth = self.headers.get("Authorization")
        with lock:
            i = state["next"]
            state["next"] += 1
        failures = []
        try:
            req = json.loads(body)
        except Exception as e:
            req, failures = {}, ["request is not JSON: %s" % e]
        if not self.path.endswith("/chat/completions"):
            failures.append("path %s" % self.path)
        responses = script["responses"]
        if i >= len(responses):
            entry = {"status": 500, "body": {"error": "script exhausted"}}
            failures.append("script exhausted: request %d" % i)
        else:
            entry = responses[i]
            try:
                failures += check(entry.get("expect", {}), req, auth)
            except Exception as e:  # a malformed expectation is a failure, not a dropped connection
                failures.append("checking the request failed: %r" % e)
        with lock:
            with open(log_path, "a") as f:
                f.write(json.dumps({"index": i, "path": self.path, "auth": auth, "body": req, "failures": failures}) + "\n")
        time.sleep(entry.get("delay", 0))
        status = entry.get("status", 200)
        out = entry["body"] if "body" in entry else completion(entry.get("reply", {"content": "done"}))
        data = json.dumps(out).encode()
        try:
            self.send_response(status)
            for k, v in entry.get("headers", {}).items():
                self.send_header(k, str(v))
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client timed out and went away (the timeout test)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
tmp = port_file + ".tmp"
with open(tmp, "w") as f:
    f.write(str(server.server_address[1]))
os.rename(tmp, port_file)
server.serve_forever()
