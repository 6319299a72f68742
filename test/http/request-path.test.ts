import { expect, test } from "bun:test";
import { serializedPath } from "../../src/http/request-path.ts";

// The request log and the error handler read a request's path from its serialized URL instead
// of parsing it again; the answer must be exactly what the URL parser says, for any URL.

const inputs = [
  "http://localhost/health",
  "http://localhost",
  "http://localhost?x=1",
  "http://localhost#frag",
  "https://node.example.com:8443/ink/v1/svc%3Az6Mk/intent?x=/y#z",
  "http://h/a/../b/./c",
  "http://h/a%2e%2e/b",
  "http://h//x\\y/%zz/é",
  "http://h/a#b?c",
  "http://h/a?b#c/d",
  "http://user:p%40ss@h:1/p/q",
  "http://[::1]:8080/a/b?c",
  "http://bücher.example/ü?ü#ü",
  "HTTP://H/Upper/Case",
  "http://h/ spaced /x",
  "http://h/%",
];

test("the path of any absolute request URL is the URL parser's pathname", () => {
  for (const input of inputs) {
    const url = new Request(input).url;
    expect({ url, path: serializedPath(url) }).toEqual({ url, path: new URL(url).pathname });
  }
});

test("a relative URL (no usable Host) is left to the parser", () => {
  expect(serializedPath("/p?x")).toBeNull();
  expect(serializedPath("")).toBeNull();
});
