import { ValidateBy, ValidationOptions } from 'class-validator';
import { CONTROL_CHARACTERS } from '../mail/mail-text';

/**
 * A single line of text a person reads (an account's display name, which every account mail
 * carries): no control characters, line or paragraph separators, or bidirectional overrides,
 * which would forge lines or reorder a mail's text. Not a `pattern` in the document: `\p{..}`
 * classes are not portable across the tools that read it.
 */
export function IsSingleLineText(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isSingleLineText',
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || !CONTROL_CHARACTERS.test(value),
        defaultMessage: (args) => `${args?.property ?? 'value'} must not contain control characters or line breaks`,
      },
    },
    options,
  );
}
