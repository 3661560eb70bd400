/**
 * A deterministic embeddings model for tests: words hashed into 64 buckets, so texts sharing most words are
 * close (cosine near 1) and unrelated texts are far apart.
 */
export function bagOfWordsEmbedding(text: string): number[] {
  const vector = new Array<number>(64).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let hash = 2166136261;
    for (const character of word) hash = Math.imul(hash ^ character.charCodeAt(0), 16777619);
    vector[(hash >>> 0) % 64] += 1;
  }
  return vector;
}
