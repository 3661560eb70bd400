import { useState } from 'preact/hooks';
import { segment, type Json } from '../api';
import { apiUrl } from '../mount';
import { authHeaders, loadCredential } from '../session';

/**
 * An export's file. On AWS `download_url` is a presigned S3 URL, a plain link. Locally it is gw's own download
 * route, which needs the API key: the console fetches it with the key (from this mount, so a stage prefix is kept)
 * and saves the bytes, since a link cannot carry a header and the key never goes into a URL.
 */
export function DownloadLink({ row }: { row: Json }) {
  const [error, setError] = useState<string>();
  const url = String(row.download_url ?? '');
  const id = String(row.id);
  if (!url.includes(`/v1/exports/${id}/download`))
    return (
      <a href={url} rel="noreferrer">
        Download
      </a>
    );
  const save = async () => {
    setError(undefined);
    const credential = loadCredential();
    if (!credential) return;
    const response = await fetch(apiUrl(`/v1/exports/${segment(id)}/download`), { headers: authHeaders(credential) });
    if (!response.ok) return setError(`HTTP ${response.status}`);
    const link = document.createElement('a');
    link.href = URL.createObjectURL(await response.blob());
    link.download = `gw-logs-${id}.${String(row.format ?? 'jsonl')}`;
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
  };
  return (
    <span>
      <button type="button" aria-label={`Download ${id}`} onClick={(event) => (event.stopPropagation(), void save())}>
        Download
      </button>
      {error ? <span class="invalid"> {error}</span> : null}
    </span>
  );
}
