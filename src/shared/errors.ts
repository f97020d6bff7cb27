/**
 * Domain errors: services throw these, never Boom. The HTTP edge (http/plugins/error-body.ts)
 * and the CLI (cli/main.ts) turn them into the spec's error body or an exit code.
 */
export class DomainError extends Error {
  headers: Record<string, string> = {};
  constructor(
    message: string,
    readonly excType: string,
    readonly status: number,
    readonly messages: string[] = [message],
  ) {
    super(message);
    this.name = excType;
  }
  withHeader(name: string, value: string): this {
    this.headers[name] = value;
    return this;
  }
}

/** 400: a missing field or an invalid value. */
export class InputError extends DomainError {
  constructor(message: string, messages?: string[]) {
    super(message, 'ValidationError', 400, messages);
  }
}
/** 401: missing or invalid credentials. */
export class AuthenticationError extends DomainError {
  constructor(message = 'Not authenticated') {
    super(message, 'AuthenticationError', 401);
  }
}
/** 403: the actor may not do this. */
export class PermissionError extends DomainError {
  constructor(message = 'Not permitted') {
    super(message, 'PermissionError', 403);
  }
}
/** 403: a session write without the CSRF token. */
export class CsrfError extends DomainError {
  constructor(message = 'Invalid Request: CSRF token missing or wrong') {
    super(message, 'CSRFTokenError', 403);
  }
}
/** 404: the record does not exist, or the actor may not know it exists. */
export class NotFoundError extends DomainError {
  constructor(message: string) {
    super(message, 'DoesNotExistError', 404);
  }
}
/** 409: a conflicting state (duplicate, idempotency key reuse or in flight). */
export class ConflictError extends DomainError {
  constructor(message: string, excType = 'ConflictError') {
    super(message, excType, 409);
  }
}
/** 417: a business rule refused the request (Frappe's ValidationError). */
export class BusinessRuleError extends DomainError {
  constructor(message: string, excType = 'ValidationError', messages?: string[]) {
    super(message, excType, 417, messages);
  }
}
/** 422: understood but not processable for this actor (e.g. pharmacy scope). */
export class UnprocessableError extends DomainError {
  constructor(message: string, excType = 'UnprocessableEntityError') {
    super(message, excType, 422);
  }
}
/** 429: too many requests or too large a batch. */
export class RateLimitError extends DomainError {
  constructor(message: string, retryAfterSeconds?: number) {
    super(message, 'TooManyRequestsError', 429);
    if (retryAfterSeconds !== undefined) this.withHeader('Retry-After', String(Math.max(1, Math.ceil(retryAfterSeconds))));
  }
}
