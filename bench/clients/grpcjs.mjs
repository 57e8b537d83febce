// @grpc/grpc-js on the calls of bench/clients, with the client's own
// generated messages (@bufbuild/protobuf) as the serializer: what a unary
// call costs on grpc-js's HTTP/2 stack, for the side-by-side in bench.mjs.

import grpc from "@grpc/grpc-js";
import { create, fromBinary, toBinary } from "../../clients/typescript/node_modules/@bufbuild/protobuf/dist/esm/index.js";

import {
  GetSessionRequestSchema,
  GetSessionResponseSchema,
  ValidateToolCallRequestSchema,
  ValidateToolCallResponseSchema,
} from "../../clients/typescript/dist/src/gen/toolguard/v1/toolguard_pb.js";

export function createGrpcJsClient(address) {
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  const unary = (path, reqSchema, resSchema, req) =>
    new Promise((res, rej) =>
      client.makeUnaryRequest(path, (m) => Buffer.from(toBinary(reqSchema, m)), (b) => fromBinary(resSchema, b),
        req, (err, out) => (err ? rej(err) : res(out))));
  const context = { sessionId: "bench-grpc-js" };
  return {
    async getSession() {
      const req = create(GetSessionRequestSchema, { sessionId: context.sessionId });
      return (await unary("/toolguard.v1.ToolGuardService/GetSession", GetSessionRequestSchema, GetSessionResponseSchema, req)).session;
    },
    async validate(name, { argumentsText }) {
      const req = create(ValidateToolCallRequestSchema, { context, call: { name, arguments: { case: "argumentsText", value: argumentsText } } });
      return (await unary("/toolguard.v1.ToolGuardService/ValidateToolCall", ValidateToolCallRequestSchema, ValidateToolCallResponseSchema, req)).verdict;
    },
    close() {
      client.close();
    },
  };
}
