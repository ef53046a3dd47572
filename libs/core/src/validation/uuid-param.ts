import { Param, ParseUUIDPipe } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import { Problem } from '../errors/problem';

const uuidPipe = (name: string) =>
  new ParseUUIDPipe({
    version: undefined,
    exceptionFactory: () => Problem.invalidInput(`${name} must be a UUID`, [{ field: name, message: 'must be a UUID' }]),
  });

/** A path parameter that must be a UUID: anything else is a 400 before any lookup. */
export function UuidParam(name = 'id'): ParameterDecorator {
  return (target, key, index) => {
    Param(name, uuidPipe(name))(target, key, index);
    if (key) ApiParam({ name, format: 'uuid', type: 'string' })(target, key, Object.getOwnPropertyDescriptor(target, key)!);
  };
}
