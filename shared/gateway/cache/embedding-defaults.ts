/**
 * The standard embeddings model of each provider, used by the semantic cache when the config names none.
 * Providers missing here (Anthropic has no embeddings; Azure needs a deployment) require `cache.embeddings`.
 */
export const DEFAULT_EMBEDDING_MODELS: Readonly<Record<string, string>> = {
  openai: 'text-embedding-3-small',
  google: 'gemini-embedding-001',
  'vertex-ai': 'text-embedding-005',
  bedrock: 'amazon.titan-embed-text-v2:0',
  'mistral-ai': 'mistral-embed',
  'together-ai': 'BAAI/bge-base-en-v1.5',
  'fireworks-ai': 'nomic-ai/nomic-embed-text-v1.5',
  deepinfra: 'BAAI/bge-base-en-v1.5',
  ollama: 'nomic-embed-text',
};
