export interface BuiltConsole {
  outDir: string;
  sizes: {
    page: { raw: number; brotli: number; gzip: number };
    /** What a first visit downloads, by file under assets/. */
    files: Record<string, { raw: number; brotli: number; gzip: number }>;
    /** The chunks loaded on first use (the results screen), by file under assets/. */
    lazy: Record<string, { raw: number; brotli: number; gzip: number }>;
  };
  /** The page, its entry script, the chunks it imports at once and its stylesheet: what a first visit downloads. */
  initial: { raw: number; brotli: number; gzip: number };
  /** What the lazily loaded chunks add. */
  lazy: { raw: number; brotli: number; gzip: number };
}

export function buildConsole(options?: { outDir?: string }): Promise<BuiltConsole>;
