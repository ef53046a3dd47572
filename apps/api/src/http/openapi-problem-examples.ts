import { OpenAPIObject } from '@nestjs/swagger';
import { documentedProblemCodes, PROBLEM_MEDIA_TYPE, problemExample, ProblemCode } from '@app/core';

type MediaTypes = Record<string, { examples?: Record<string, unknown> }>;
type Responses = Record<string, { content?: MediaTypes }>;

/**
 * An example per problem response, one for each code it lists: the ProblemResponse schema's own
 * example is a 404, which Swagger UI showed under every error status. Each example is
 * written once under components/examples and referenced, so the document does not repeat them.
 */
export function addProblemExamples(document: OpenAPIObject): void {
  const examples: Record<string, { summary: string; value: unknown }> = {};
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item) as { responses?: Responses }[]) {
      for (const [status, response] of Object.entries(operation?.responses ?? {})) {
        const media = response.content?.[PROBLEM_MEDIA_TYPE];
        if (!media) continue;
        media.examples = {};
        for (const code of documentedProblemCodes(response) as ProblemCode[]) {
          const name = `problem-${status}-${code}`;
          examples[name] ??= { summary: `${status} ${code}`, value: problemExample(Number(status), code) };
          media.examples[code] = { $ref: `#/components/examples/${name}` };
        }
      }
    }
  }
  document.components = { ...document.components, examples: sortedByName(examples) };
}

function sortedByName<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}
