import { MIGRATIONS, schemaLabel } from "../db/migrate.ts";
import { VERSION } from "../version.ts";
import type { Command } from "./command.ts";

export const versionCommand: Command = {
  name: "version",
  summary: "Print the Kith version, the Bun runtime and the newest database schema this build knows.",
  usage: "kith version",
  options: {},
  run(_values, io) {
    io.out(`kith ${VERSION} (bun ${Bun.version}, ${process.platform}-${process.arch}, schema ${MIGRATIONS.length} of ${schemaLabel(MIGRATIONS.at(-1)?.createdAt ?? 0)})`);
    return 0;
  },
};
