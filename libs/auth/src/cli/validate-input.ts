import { ClassConstructor, plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { Problem } from '@app/core';

/** The same validation the HTTP API applies, for input that comes from the command line. */
export async function validateInput<T extends object>(type: ClassConstructor<T>, plain: object): Promise<T> {
  const instance = plainToInstance(type, plain);
  const errors = await validate(instance, { whitelist: true, forbidNonWhitelisted: true, stopAtFirstError: true });
  if (errors.length) {
    const fields = errors.flatMap((e) => Object.values(e.constraints ?? {}).map((message) => ({ field: e.property, message })));
    throw Problem.invalidInput(fields.map((f) => f.message).join('; '), fields);
  }
  return instance;
}
