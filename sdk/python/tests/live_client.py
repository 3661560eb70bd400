"""The client against a running gw (started by test/integration/sdk/python-sdk.test.ts with a mock provider).

Run by `npm test`: GW_BASE_URL, GW_API_KEY and MOCK_PROVIDER_URL come from the test that starts both.
"""
import os
import unittest

from gw_sdk import AuthenticationError, BadRequestError, Gw, NotFoundError, create_headers

BASE_URL = os.environ["GW_BASE_URL"]
API_KEY = os.environ["GW_API_KEY"]
MOCK = os.environ["MOCK_PROVIDER_URL"]


def client(**extra):
    return Gw(API_KEY, BASE_URL, provider_api_key="sk-provider", provider="openai", custom_host=MOCK, **extra)


class LiveClientTest(unittest.TestCase):
    def test_chat_completion(self):
        completion = client().chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "Hi"}])
        self.assertEqual(completion["choices"][0]["message"]["content"], "Hello from the mock provider!")

    def test_streamed_chat_completion(self):
        chunks = client().chat.completions.create(model="gpt-4o-mini", stream=True,
                                                  messages=[{"role": "user", "content": "Hi"}])
        text = "".join((chunk["choices"][0]["delta"].get("content") or "") for chunk in chunks if chunk["choices"])
        self.assertEqual(text, "Hello from the mock provider!")

    def test_with_options_sets_trace_and_metadata(self):
        traced = client().with_options(trace_id="py-trace-1", metadata={"_user": "py-user"})
        self.assertEqual(traced.headers["x-gw-trace-id"], "py-trace-1")
        completion = traced.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "Hi"}])
        self.assertIn("choices", completion)

    def test_prompt_render_and_completions(self):
        gw = client()
        prompt = gw.request("POST", "/v1/prompts", {
            "name": "py-greeting", "messages": [{"role": "user", "content": "Hello {{name}}"}], "model": "gpt-4o-mini",
        })
        rendered = gw.prompts.render(prompt["id"], {"name": "Ada"}, temperature=0.2)
        self.assertTrue(rendered["success"])
        self.assertEqual(rendered["data"]["messages"][0]["content"], "Hello Ada")
        self.assertEqual(rendered["data"]["temperature"], 0.2)
        completion = gw.prompts.completions(prompt["id"], {"name": "Ada"})
        self.assertEqual(completion["choices"][0]["message"]["content"], "Hello from the mock provider!")

    def test_policy_creation(self):
        policy = client().policies.rate_limits.create(
            name="py-policy", conditions=[{"key": "metadata._user", "value": "py"}], group_by=[{"key": "api_key"}],
            type="requests", unit="rpm", value=10)
        self.assertEqual(policy["object"], "policy_usage_limits")
        with self.assertRaises(BadRequestError) as caught:
            client().policies.rate_limits.create(type="requests")
        self.assertEqual(caught.exception.status, 400)

    def test_logs_list(self):
        page = client().logs.list(limit=5)
        self.assertEqual(page["object"], "list")

    def test_typed_errors(self):
        with self.assertRaises(AuthenticationError) as caught:
            Gw("gwk_wrong", BASE_URL, provider_api_key="x", provider="openai", custom_host=MOCK).chat.completions.create(
                model="m", messages=[{"role": "user", "content": "Hi"}])
        self.assertEqual(caught.exception.code, "api_key_invalid")
        self.assertTrue(caught.exception.trace_id)
        with self.assertRaises(NotFoundError):
            client().prompts.render("pp-does-not-exist", {})

    def test_headers_work_with_a_plain_http_client(self):
        import json
        import urllib.request

        headers = create_headers(api_key=API_KEY, provider="openai", custom_host=MOCK)
        headers.update({"authorization": "Bearer sk-provider", "content-type": "application/json"})
        body = json.dumps({"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Hi"}]}).encode()
        with urllib.request.urlopen(urllib.request.Request(BASE_URL + "/chat/completions", body, headers)) as response:
            self.assertEqual(response.status, 200)


if __name__ == "__main__":
    unittest.main()
