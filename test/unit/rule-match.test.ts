import { describe, expect, test } from "bun:test";
import { matchesRule, valueAt } from "../../src/domain/rules/internal/match.ts";
import { declinePayload, renderTemplate, unknownPlaceholders } from "../../src/domain/rules/internal/template.ts";

const subject = { intent: "ask", principal: "key:zBob", layer: "active" as const, payload: { question: "Lunch on Friday?", tags: ["Food", "fri"], meta: { n: 3, ok: true } } };

describe("rule matching (pure)", () => {
  test("an empty match matches everything; every given condition must hold", () => {
    expect(matchesRule({}, [], subject)).toBe(true);
    expect(matchesRule({ intents: ["ask", "ping"] }, [], subject)).toBe(true);
    expect(matchesRule({ intents: ["ping"] }, [], subject)).toBe(false);
    expect(matchesRule({}, ["key:zBob"], subject)).toBe(true);
    expect(matchesRule({}, ["key:zCarol"], subject)).toBe(false);
    expect(matchesRule({ layers: ["inner", "active"] }, [], subject)).toBe(true);
    expect(matchesRule({ layers: ["inner"] }, [], subject)).toBe(false);
    expect(matchesRule({ layers: ["known"] }, [], { ...subject, layer: null })).toBe(false);
    expect(matchesRule({ intents: ["ask"], layers: ["inner"] }, [], subject)).toBe(false);
  });

  test("payload conditions: equals (exact), contains (case-insensitive, or array member), exists", () => {
    const m = (op: "equals" | "contains" | "exists", path: string, value?: string | number | boolean) => matchesRule({ payload: [{ op, path, ...(value === undefined ? {} : { value }) }] }, [], subject);
    expect(m("contains", "question", "LUNCH")).toBe(true);
    expect(m("contains", "question", "dinner")).toBe(false);
    expect(m("equals", "question", "Lunch on Friday?")).toBe(true);
    expect(m("equals", "question", "lunch on friday?")).toBe(false);
    expect(m("contains", "tags", "food")).toBe(true);
    expect(m("contains", "tags", "foo")).toBe(false);
    expect(m("equals", "meta.n", 3)).toBe(true);
    expect(m("equals", "meta.n", "3")).toBe(false);
    expect(m("equals", "meta.ok", true)).toBe(true);
    expect(m("exists", "meta.ok")).toBe(true);
    expect(m("exists", "context")).toBe(false);
    expect(m("contains", "meta.n", "3")).toBe(false);
  });

  test("valueAt never reads inherited members", () => {
    expect(valueAt({ a: { b: 1 } }, "a.b")).toBe(1);
    expect(valueAt({ a: 1 }, "a.b")).toBeUndefined();
    expect(valueAt({}, "constructor")).toBeUndefined();
    expect(valueAt({ a: [1] }, "a.length")).toBeUndefined();
  });

  test("templates: known placeholders render, missing ones become empty, unknown ones are reported", () => {
    const ctx = { sender: { agentId: "svc:zBob", handle: "bob", displayName: null }, owner: { displayName: "Alice", handle: "alice" }, message: { intent: "ask", id: "m1" }, payload: { question: "Lunch?", n: 2 } };
    expect(renderTemplate({ answer: "{{ sender.displayName }} asked {{payload.question}} ({{payload.n}}{{payload.none}}) — {{owner.displayName}}" }, ctx)).toEqual({ answer: "bob asked Lunch? (2) — Alice" });
    expect(renderTemplate({ answer: "x", choiceIndex: 1 }, ctx)).toEqual({ answer: "x", choiceIndex: 1 });
    expect(unknownPlaceholders({ a: "{{payload.q}} {{sender.handle}}", b: ["{{secret.key}}"] })).toEqual(["secret.key"]);
  });

  test("decline payloads exist only where the response has a declining status", () => {
    expect(declinePayload("schedule_meeting", "busy")).toEqual({ status: "declined", note: "busy" });
    expect(declinePayload("intro_request")).toEqual({ status: "declined" });
    expect(declinePayload("opportunity")).toEqual({ status: "not_interested" });
    expect(declinePayload("ask")).toBeNull();
  });
});
