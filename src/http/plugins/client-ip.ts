/**
 * The client's address for rate limits and logs. Behind your own reverse proxy
 * (KITH_TRUST_PROXY) it is the last X-Forwarded-For hop, the one your proxy appended; anything
 * earlier in the header was written by the client and is ignored. Without the setting the header
 * is never read, so a client cannot choose its own rate-limit key.
 */
export function clientIpResolver(options: { trustProxy: boolean; remoteAddress: (request: Request) => string | null }) {
  return (request: Request): string | null => {
    if (options.trustProxy) {
      const forwarded = request.headers.get("x-forwarded-for");
      const last = forwarded?.split(",").at(-1)?.trim();
      if (last && isIpLiteral(last)) return last.toLowerCase();
    }
    return options.remoteAddress(request);
  };
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

function isIpLiteral(value: string): boolean {
  if (IPV4.test(value)) return true;
  return value.length <= 45 && value.includes(":") && /^[0-9A-Fa-f:.]+$/.test(value);
}
