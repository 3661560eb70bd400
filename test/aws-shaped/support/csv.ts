/**
 * Reads CSV as a spreadsheet does (RFC 4180): fields split on `,` outside quotes, `""` inside quotes is one `"`, a
 * line break inside quotes belongs to the field. What the export tests check a download against.
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (quoted) {
      if (char === '"' && text[index + 1] === '"') (field += '"'), index++;
      else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') row.push(field), (field = '');
    else if (char === '\n') row.push(field), rows.push(row), (row = []), (field = '');
    else if (char !== '\r') field += char;
  }
  if (field !== '' || row.length > 0) row.push(field), rows.push(row);
  return rows;
}
