/**
 * The methods each registered path answers, so a request for a known path with another method
 * (TRACE, say) can be told which ones it may use (405 with `Allow`) rather than 404.
 */
export class RouteMethods {
  private readonly routes: { pattern: RegExp; methods: Set<string> }[] = [];
  private readonly byUrl = new Map<string, Set<string>>();

  add(method: string | string[], url: string): void {
    const list = Array.isArray(method) ? method : [method];
    // A catch-all (the CORS preflight's `OPTIONS *`) names no path; a plain OPTIONS is 404.
    if (url === '*' || url === '/*') return;
    let methods = this.byUrl.get(url);
    if (!methods) {
      methods = new Set();
      this.byUrl.set(url, methods);
      this.routes.push({ pattern: patternOf(url), methods });
    }
    for (const m of list) methods.add(m.toUpperCase());
    if (methods.has('GET')) methods.add('HEAD');
  }

  /** The methods some route on this concrete path answers, sorted; empty when no route matches. */
  allowedFor(path: string): string[] {
    const trimmed = path.length > 1 ? path.replace(/\/+$/, '') : path;
    const allowed = new Set<string>();
    for (const route of this.routes) {
      if (route.pattern.test(trimmed)) for (const m of route.methods) allowed.add(m);
    }
    return [...allowed].sort();
  }
}

/** `/api/v1/loads/:id` as a regular expression over concrete paths (`*` matches the rest). */
function patternOf(url: string): RegExp {
  const trimmed = url.length > 1 ? url.replace(/\/+$/, '') : url;
  const source = trimmed
    .split('/')
    .map((part) => {
      if (part === '*') return '.*';
      if (part.startsWith(':')) return '[^/]+';
      return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return new RegExp(`^${source}$`);
}
