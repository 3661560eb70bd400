# Sourced before the shell examples of a page (test/integration/doc-shell-examples.test.ts): curl as a reader
# calls it, pointed at the test gateway, with the placeholder key replaced. The provider is the mock: an
# example's own x-gw-custom-host is pointed at it, and one is added where the request names the provider itself
# (a stored credential, in a virtual key or saved config, goes only to its own host, which the example set up).
set -euo pipefail
curl() {
  local args=() arg host=add retry=(--retry 5 --retry-all-errors --retry-delay 1)
  for arg in "$@"; do
    case "$arg" in -d|--data*|-X|-T) retry=() ;; esac
    arg="${arg//http:\/\/127.0.0.1:8787/$GW_TEST_URL}"
    arg="${arg//localhost:8787/$GW_TEST_URL}"
    arg="${arg//gwk_…/$GW_TEST_KEY}"
    arg="${arg//gwk_.../$GW_TEST_KEY}"
    case "$arg" in
      x-gw-custom-host:*) arg="x-gw-custom-host: $GW_TEST_MOCK"; host=given ;;
      x-gw-virtual-key:*|x-gw-deployment:*|"x-gw-provider: @"*|"x-gw-config: cfg-"*) host=stored ;;
    esac
    args+=("$arg")
  done
  if [ "$host" = add ]; then args+=(-H "x-gw-custom-host: $GW_TEST_MOCK"); fi
  # Logs and traces are written just after a response: a read right after one may briefly 404, so reads retry.
  command curl -sS --fail-with-body --max-time 60 "${retry[@]}" "${args[@]}"
  echo
}
