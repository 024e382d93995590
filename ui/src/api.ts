// The generated commands, unwrapped: a command error becomes a thrown AppFailure that
// carries Rust's machine-readable code (screens branch on the code, never on text).
import type { AppError, ErrorCode } from "./bindings";

export class AppFailure extends Error {
  code: ErrorCode;
  constructor(e: AppError) {
    super(e.message);
    this.code = e.code;
  }
}

type Result<T> = { status: "ok"; data: T } | { status: "error"; error: AppError };

export async function call<T>(p: Promise<Result<T>>): Promise<T> {
  const r = await p;
  if (r.status === "error") throw new AppFailure(r.error);
  return r.data;
}

export function message(e: unknown): string {
  if (e instanceof Error) return e.message;
  if (typeof e === "string") return e;
  return JSON.stringify(e);
}
