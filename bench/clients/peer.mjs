// What a TypeScript user would do instead of toolguard, in process: repair
// the arguments with npm jsonrepair, parse them, check them with ajv against
// write_to_file's schema. Shaped like the clients' validate for worker.mjs:
// ok, and the value when ok.

import { Ajv } from "ajv";
import { jsonrepair } from "jsonrepair";

import { writeToFileSchema } from "./calls.mjs";

export function createInProcessPeer() {
  const check = new Ajv().compile(writeToFileSchema);
  return {
    async validate(_name, { argumentsText }) {
      let value;
      try {
        value = JSON.parse(jsonrepair(argumentsText));
      } catch {
        return { ok: false };
      }
      return check(value) ? { ok: true, value } : { ok: false };
    },
    async getSession() {},
    close() {},
  };
}
