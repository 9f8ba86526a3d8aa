/** Where a request goes, as undici's dispatcher takes it: the URL's origin, and its path with the query. */
export interface RequestAddress {
  origin: string;
  path: string;
}

/** Targets remembered at most; past this the memory starts over (jobs rarely have so many distinct URLs). */
const MAX_REMEMBERED = 10_000;

/**
 * The address of each target URL, parsed once: a job calls the same URL at every run, and parsing it (for
 * its breaker's origin, then again inside undici's request()) was a measurable part of each HTTP run.
 */
export class RequestAddresses {
  private readonly known = new Map<string, RequestAddress>();

  /** Throws as `new URL` does for a URL that does not parse (a stored target always does). */
  of(url: string): RequestAddress {
    let address = this.known.get(url);
    if (address === undefined) {
      const parsed = new URL(url);
      address = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
      if (this.known.size >= MAX_REMEMBERED) this.known.clear();
      this.known.set(url, address);
    }
    return address;
  }
}
