/**
 * TypeScript client of toolguard: {@link createToolGuardClient} and the
 * generated toolguard.v1 API (messages, enums, schemas and the service
 * descriptor), plus the google.rpc error detail schemas toolguard uses.
 *
 * @packageDocumentation
 */

export * from "./client.js";
export { CLIENT_HEADER, VERSION } from "./version.js";
export * from "./gen/toolguard/v1/toolguard_pb.js";
export {
  BadRequestSchema,
  ErrorInfoSchema,
  PreconditionFailureSchema,
  RetryInfoSchema,
  type BadRequest,
  type BadRequest_FieldViolation,
  type ErrorInfo,
  type PreconditionFailure,
  type PreconditionFailure_Violation,
  type RetryInfo,
} from "./gen/google/rpc/error_details_pb.js";
