"""create_headers, offline: every parameter, custom names, and the gateway's own validation rules."""
import json
import unittest

from gw_sdk import PARAMETER_HEADERS, GwValidationError, create_headers, custom_header_name


class CreateHeadersTest(unittest.TestCase):
    def test_every_parameter_becomes_its_header(self):
        headers = create_headers(
            api_key="gwk_x", provider="openai", virtual_key="vk-1",
            config={"strategy": {"mode": "fallback"}, "targets": [{"provider": "openai"}]},
            custom_host="http://127.0.0.1:8000/v1", trace_id="t-1", metadata={"_user": "alice"},
            cache_force_refresh=True, cache_namespace="ns", request_timeout=5000,
            forward_headers=["X-Tenant-Id"], deployment="prod", cloudc_region="eu-west-1",
        )
        self.assertEqual(headers, {
            "x-gw-api-key": "gwk_x", "x-gw-provider": "openai", "x-gw-virtual-key": "vk-1",
            "x-gw-config": '{"strategy":{"mode":"fallback"},"targets":[{"provider":"openai"}]}',
            "x-gw-custom-host": "http://127.0.0.1:8000/v1", "x-gw-trace-id": "t-1",
            "x-gw-metadata": '{"_user":"alice"}', "x-gw-cache-force-refresh": "true", "x-gw-cache-namespace": "ns",
            "x-gw-request-timeout": "5000", "x-gw-forward-headers": "X-Tenant-Id", "x-gw-deployment": "prod",
            "x-gw-cloudc-region": "eu-west-1",
        })

    def test_refuses_the_typescript_spelling_of_a_parameter_naming_the_python_one(self):
        for camel, snake in [("apiKey", "api_key"), ("virtualKey", "virtual_key"), ("traceID", "trace_id"),
                             ("baseURL", "base_url"), ("providerApiKey", "provider_api_key"), ("cloudcRegion", "cloudc_region")]:
            with self.assertRaises(GwValidationError) as raised:
                create_headers(**{camel: "x"})
            self.assertEqual(raised.exception.param, snake)
            self.assertIn(f"`{snake}`", str(raised.exception))
        # Even as None (a default left unset), the misspelling is named rather than ignored.
        with self.assertRaises(GwValidationError):
            create_headers(apiKey=None)
        from gw_sdk import Gw
        with self.assertRaises(GwValidationError) as raised:
            Gw("gwk_x", baseURL="http://127.0.0.1:8787/v1")
        self.assertEqual(raised.exception.param, "base_url")
        # A custom header in any case that is not a parameter's spelling stays a header.
        self.assertEqual(create_headers(xTenant="a"), {"xTenant": "a"})

    def test_custom_snake_case_keys_become_headers(self):
        self.assertEqual(create_headers(X_My_Header="a"), {"X-My-Header": "a"})
        self.assertEqual(custom_header_name("x_tenant_id"), "x-tenant-id")

    def test_result_is_plain_str_dict_for_openai_default_headers(self):
        headers = create_headers(api_key="k", metadata={"a": "b"})
        self.assertTrue(all(isinstance(k, str) and isinstance(v, str) for k, v in headers.items()))

    def test_none_values_are_left_out(self):
        self.assertEqual(create_headers(api_key="k", provider=None), {"x-gw-api-key": "k"})

    def test_every_documented_header_is_lower_case(self):
        for header in PARAMETER_HEADERS.values():
            self.assertEqual(header, header.lower())

    def test_bad_values_are_refused_with_the_gateways_message(self):
        cases = [
            (dict(request_timeout=0), "x-gw-request-timeout"),
            (dict(request_timeout="5000"), "x-gw-request-timeout"),
            (dict(trace_id="has spaces"), "x-gw-trace-id"),
            (dict(metadata={"n": 1}), "values must be strings"),
            (dict(forward_headers=["authorization"]), "cannot be forwarded"),
            (dict(cache_force_refresh="yes"), "x-gw-cache-force-refresh"),
            (dict(config="not a config id!"), "saved config id"),
            (dict(config="{not json"), "not valid JSON"),
            (dict(provider="openai\r\nx-evil: 1"), "control characters"),
        ]
        for kwargs, fragment in cases:
            with self.subTest(kwargs=kwargs):
                with self.assertRaises(GwValidationError) as caught:
                    create_headers(**kwargs)
                self.assertIn(fragment, str(caught.exception))

    def test_inline_config_string_is_normalised_json(self):
        headers = create_headers(config='{ "targets": [ {"provider": "openai"} ] }')
        self.assertEqual(json.loads(headers["x-gw-config"]), {"targets": [{"provider": "openai"}]})


if __name__ == "__main__":
    unittest.main()
