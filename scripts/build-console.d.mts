export interface BuiltConsole {
  outDir: string;
  sizes: {
    page: { raw: number; brotli: number; gzip: number };
    files: Record<string, { raw: number; brotli: number; gzip: number }>;
  };
  /** The page, its script and its stylesheet: what a first visit downloads. */
  initial: { raw: number; brotli: number; gzip: number };
}

export function buildConsole(options?: { outDir?: string }): Promise<BuiltConsole>;
