/**
 * Reads CSV as a spreadsheet does (RFC 4180): fields split on `,` outside quotes, `""` inside quotes is one `"`, a
 * line break inside quotes belongs to the field. What the export tests check a download against.
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const endField = () => {
    row.push(field);
    field = '';
  };
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (quoted) {
      if (char === '"' && text[index + 1] === '"') {
        field += '"';
        index++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') endField();
    else if (char === '\n') {
      endField();
      rows.push(row);
      row = [];
    } else if (char !== '\r') field += char;
  }
  if (field !== '' || row.length > 0) {
    endField();
    rows.push(row);
  }
  return rows;
}
