// madge ships no types; the part scripts/import-graph.ts uses.
declare module 'madge' {
  interface MadgeResult {
    obj(): Record<string, string[]>;
    circular(): string[][];
  }
  interface MadgeOptions {
    baseDir?: string;
    fileExtensions?: string[];
    tsConfig?: string;
  }
  export default function madge(paths: string | string[], options?: MadgeOptions): Promise<MadgeResult>;
}
