/** What an attempt span carries besides its timing: the AttemptRecord's fields under OpenTelemetry names. */
export function attemptSpanAttributes(
  record: { target_path: string; provider?: string; model?: string; status: number; error_code?: string; cache_status?: string },
  virtualKeyId: string | undefined,
): Record<string, string | number | undefined> {
  return {
    'gw.target_path': record.target_path,
    'gen_ai.provider.name': record.provider,
    'gen_ai.request.model': record.model,
    'http.response.status_code': record.status,
    'gw.cache_status': record.cache_status,
    'gw.virtual_key_id': virtualKeyId,
    'error.type': record.error_code,
  };
}

export function attemptSpanError(record: { status: number; error_code?: string }): { code: string } | undefined {
  return record.error_code || record.status >= 400 ? { code: record.error_code ?? `http_${record.status}` } : undefined;
}
