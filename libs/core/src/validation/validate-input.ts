import { ValidationError } from '@nestjs/common';
import { ClassConstructor, plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { FieldError, Problem } from '../errors/problem';

export const VALIDATION_OPTIONS = { whitelist: true, forbidNonWhitelisted: true, stopAtFirstError: true } as const;

/** Nested class-validator errors as `field.path: message` pairs. */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = !parent ? error.property : /^\d+$/.test(error.property) ? `${parent}[${error.property}]` : `${parent}.${error.property}`;
    // class-validator's messages begin with the property's own name; nested, they name its whole path.
    const named = (message: string) =>
      parent && message.startsWith(`${error.property} `) ? `${field}${message.slice(error.property.length)}` : message;
    const own = Object.values(error.constraints ?? {}).map((message) => ({ field, message: named(message) }));
    return [...own, ...flattenValidationErrors(error.children ?? [], field)];
  });
}

/** An error body lists this many field errors at most, then says how many more there were. */
export const MAX_FIELD_ERRORS = 10;

export function invalidInput(errors: ValidationError[]): Problem {
  const fields = flattenValidationErrors(errors);
  const shown = fields.slice(0, MAX_FIELD_ERRORS);
  const more = fields.length - shown.length;
  const detail = shown.map((e) => e.message).join('; ') || 'The request is not valid.';
  return Problem.invalidInput(more > 0 ? `${detail}; and ${more} more errors` : detail, shown);
}

/** The validation the HTTP routes apply, for input from elsewhere (the operator's command line). */
export async function validateInput<T extends object>(type: ClassConstructor<T>, plain: object): Promise<T> {
  const instance = plainToInstance(type, plain, { enableImplicitConversion: false });
  const errors = await validate(instance, VALIDATION_OPTIONS);
  if (errors.length) throw invalidInput(errors);
  return instance;
}
