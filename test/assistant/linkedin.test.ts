import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { parseLinkedInCsv } from "../../src/domain/contacts/internal/linkedin-csv.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { asOwner } from "../helpers/owner.ts";
import { json } from "../helpers/process.ts";

/** The shape of a real export: BOM, the Notes preamble (a quoted paragraph with commas), a blank line, the header, rows. */
const PREAMBLE =
  '\uFEFFNotes:\r\n"When exporting your connection data, you may notice that some of the email addresses are missing. You will only see email addresses for connections who have allowed their connections to see or download their email address using this setting https://www.linkedin.com/psettings/privacy/email. You can learn more here https://www.linkedin.com/help/linkedin/answer/261"\r\n\r\n';
const HEADER = "First Name,Last Name,URL,Email Address,Company,Position,Connected On\r\n";
const ROWS = [
  "Ada,Lovelace,https://www.linkedin.com/in/ada-lovelace,ada@example.com,Analytical Engines,Programmer,10 Dec 2023", // line 5
  'Grace,Hopper,https://www.linkedin.com/in/gracehopper/,,"Navy, US","Rear Admiral\r\n(retired)",01 Jan 2020', // 6–7: CRLF inside a quoted field
  "",
  "Alan,Turing,,alan@example.com,Bletchley Park,Cryptanalyst,23 Jun 2021", // 9: no URL, keyed by email
  ",,,,,,", // 10
  "Nobody,,,,,,", // 11: no URL nor email
  "Ada,Lovelace,https://linkedin.com/in/ADA-LOVELACE,,Analytical Engines,Programmer,10 Dec 2023", // 12: same person
  "Bad,Mail,https://www.linkedin.com/in/badmail,not-an-email,X,Y,01 Jan 2024", // 13
  "Bad,Link,javascript:alert(1),,X,Y,01 Jan 2024", // 14
];
const FILE = PREAMBLE + HEADER + ROWS.join("\r\n") + "\r\n";

let alice: TestNode;
beforeEach(() => {
  alice = bootTestApp({ name: "alice" });
});
afterEach(() => alice.close());

describe("LinkedIn Connections.csv", () => {
  test("the parser handles the preamble, BOM, quoted commas and line breaks, blank lines and missing emails, with line numbers", () => {
    const parsed = parseLinkedInCsv(FILE);
    if (!parsed.ok) throw new Error(parsed.message);
    expect(parsed.total).toBe(8);
    expect(parsed.contacts.map((c) => [c.row, c.displayName, c.email, c.company, c.position, c.linkedinUrl, c.key])).toEqual([
      [5, "Ada Lovelace", "ada@example.com", "Analytical Engines", "Programmer", "https://www.linkedin.com/in/ada-lovelace", "linkedin:linkedin.com/in/ada-lovelace"],
      [6, "Grace Hopper", null, "Navy, US", "Rear Admiral\n(retired)", "https://www.linkedin.com/in/gracehopper", "linkedin:linkedin.com/in/gracehopper"],
      [9, "Alan Turing", "alan@example.com", "Bletchley Park", "Cryptanalyst", null, "email:alan@example.com"],
    ]);
    expect(parsed.skipped).toEqual([
      { row: 10, reason: "empty row" },
      { row: 11, reason: "no URL or Email Address to recognise the contact by" },
      { row: 12, reason: "duplicate of row 5" },
      { row: 13, reason: "Email Address: not an email address" },
      { row: 14, reason: "URL: not an http(s) link" },
    ]);
  });

  test("import creates contacts in the known layer without agent ids; re-import is idempotent; changes update", async () => {
    const first = await asOwner(alice, "/api/svc/import/linkedin", { body: { csv: FILE } });
    expect(first.status).toBe(200);
    const out = await json(first);
    expect(out).toMatchObject({ created: 3, updated: 0, unchanged: 0, total: 8 });
    expect(out.skipped).toHaveLength(5);
    const contacts = await json(await asOwner(alice, "/api/svc/connections?status=contact"));
    expect(contacts.items).toHaveLength(3);
    const ada = contacts.items.find((c: { displayName: string }) => c.displayName === "Ada Lovelace");
    expect(ada).toMatchObject({ agentId: null, status: "contact", source: "linkedin", layer: "known", health: "dormant", email: "ada@example.com", company: "Analytical Engines", position: "Programmer", linkedinUrl: "https://www.linkedin.com/in/ada-lovelace" });

    expect(await json(await asOwner(alice, "/api/svc/import/linkedin", { body: { csv: FILE } }))).toMatchObject({ created: 0, updated: 0, unchanged: 3 });
    const changed = PREAMBLE + HEADER + ["Ada,Lovelace,https://www.linkedin.com/in/ada-lovelace/,,Babbage & Co,Lead Programmer,10 Dec 2023", "Alan,Turing,https://www.linkedin.com/in/alan-turing,alan@example.com,Bletchley Park,Cryptanalyst,23 Jun 2021"].join("\n");
    expect(await json(await asOwner(alice, "/api/svc/import/linkedin", { body: { csv: changed } }))).toMatchObject({ created: 0, updated: 2, unchanged: 0, skipped: [] });
    const after = await json(await asOwner(alice, "/api/svc/connections?status=contact"));
    expect(after.items).toHaveLength(3);
    expect(after.items.find((c: { displayName: string }) => c.displayName === "Ada Lovelace")).toMatchObject({ company: "Babbage & Co", position: "Lead Programmer", email: "ada@example.com" });
    expect(after.items.find((c: { displayName: string }) => c.displayName === "Alan Turing")).toMatchObject({ linkedinUrl: "https://www.linkedin.com/in/alan-turing" });
    expect(await json(await asOwner(alice, "/api/svc/import/linkedin", { body: { csv: changed } }))).toMatchObject({ created: 0, updated: 0, unchanged: 2 });
    // Imported contacts take notes like any other.
    expect((await asOwner(alice, `/api/svc/connections/${ada.id}/notes`, { body: { text: "met at the Royal Society" } })).status).toBe(201);
  });

  test("rejections: not LinkedIn's header, not CSV, empty, too big, too many rows, no token", async () => {
    const cases: Array<[unknown, number, RegExp]> = [
      [{ csv: "name,email\nAda,ada@example.com\n" }, 400, /not a LinkedIn Connections.csv: no header line "First Name, Last Name, URL, Email Address, Company, Position, Connected On"/],
      [{ csv: 'First Name,Last Name,URL,Email Address,Company,Position,Connected On\n"Ada,Lovelace\n' }, 400, /the CSV could not be parsed/],
      [{ csv: "" }, 400, /csv: must not be empty/],
      [{ csv: 42 }, 400, /csv: the text of Connections.csv/],
      [{}, 400, /csv/],
      [{ csv: HEADER + "x".repeat(2 * 1024 * 1024) }, 413, /at most 2 MiB/],
      [{ csv: HEADER + Array.from({ length: 20_001 }, (_, i) => `A,B,https://www.linkedin.com/in/p${i},,,,`).join("\n") }, 413, /at most 20000 contacts per import/],
    ];
    for (const [body, status, message] of cases) {
      const res = await asOwner(alice, "/api/svc/import/linkedin", { body });
      expect(res.status).toBe(status);
      expect((await json(res)).message).toMatch(message);
    }
    expect((await alice.request("/api/svc/import/linkedin", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ csv: FILE }) })).status).toBe(401);
    expect((await json(await asOwner(alice, "/api/svc/connections"))).items).toHaveLength(0);
  });

  test("a large export (20,000 rows) imports in one request", async () => {
    const big = HEADER + Array.from({ length: 20_000 }, (_, i) => `First${i},Last${i},https://www.linkedin.com/in/person-${i},,Co,Role,01 Jan 2024`).join("\n");
    const out = await json(await asOwner(alice, "/api/svc/import/linkedin", { body: { csv: big } }));
    expect(out).toMatchObject({ created: 20_000, total: 20_000, skipped: [] });
  }, 30_000); // heavy (thousands of requests, mutations or scrypt runs): slow on a loaded machine
});
