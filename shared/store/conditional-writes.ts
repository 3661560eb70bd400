/** True when a write was refused because its ConditionExpression did not hold (the item changed or exists). */
export function isConditionalCheckFailure(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'ConditionalCheckFailedException';
}

/**
 * Builds an UpdateExpression from the attributes to set and to remove, with placeholder names for every
 * attribute so reserved words (`name`, `status`, …) never need special care.
 */
export function updateExpression(
  set: Record<string, unknown>,
  remove: readonly string[] = [],
): { UpdateExpression: string; ExpressionAttributeNames: Record<string, string>; ExpressionAttributeValues?: Record<string, unknown> } {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const setParts: string[] = [];
  const removeParts: string[] = [];
  let index = 0;
  for (const [attribute, value] of Object.entries(set)) {
    if (value === undefined) continue;
    const i = index++;
    names[`#u${i}`] = attribute;
    values[`:u${i}`] = value;
    setParts.push(`#u${i} = :u${i}`);
  }
  for (const attribute of remove) {
    const i = index++;
    names[`#u${i}`] = attribute;
    removeParts.push(`#u${i}`);
  }
  const clauses = [setParts.length ? `SET ${setParts.join(', ')}` : '', removeParts.length ? `REMOVE ${removeParts.join(', ')}` : ''].filter(Boolean);
  return {
    UpdateExpression: clauses.join(' '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: Object.keys(values).length ? values : undefined,
  };
}
