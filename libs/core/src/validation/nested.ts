import { applyDecorators } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsArray, IsObject, ValidateNested, ValidationOptions } from 'class-validator';

type ClassOf = () => new (...args: any[]) => object;

/**
 * A property that holds one object of `type`, validated. ValidateNested alone walks into an array
 * where the object belongs and finds nothing wrong there, so `[]` or `[[]]` reached the service and
 * answered 500: here an array, a scalar or null is a 400 naming the property.
 */
export function IsNestedObject(type: ClassOf, options?: ValidationOptions): PropertyDecorator {
  return applyDecorators(IsObject(options), ValidateNested(options), Type(type));
}

/** A property that holds a list of objects of `type`, each validated; an item that is not an object is a 400. */
export function IsListOf(type: ClassOf, options?: ValidationOptions): PropertyDecorator {
  const each = { ...options, each: true };
  return applyDecorators(IsArray(options), IsObject(each), ValidateNested(each), Type(type));
}
