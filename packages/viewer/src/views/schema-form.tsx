import { Json } from '../parts.tsx';

/** The part of JSON Schema the form draws: an object of plain fields. */
interface FieldSchema {
  type?: string | string[];
  enum?: unknown[];
  title?: string;
  description?: string;
  default?: unknown;
}
interface ObjectSchema {
  type?: string;
  properties?: Record<string, FieldSchema>;
  required?: string[];
}

type Kind = 'string' | 'number' | 'integer' | 'boolean' | 'enum';

function kindOf(field: FieldSchema): Kind | null {
  if (Array.isArray(field.enum) && field.enum.every((v) => typeof v === 'string')) return 'enum';
  const type = Array.isArray(field.type) ? field.type.find((t) => t !== 'null') : field.type;
  return type === 'string' || type === 'number' || type === 'integer' || type === 'boolean'
    ? type
    : null;
}

/**
 * The fields of a response schema the form can draw, or `null` when it is more than an object of
 * strings, numbers, booleans and string enums: then the answer is typed as JSON, the schema
 * shown beside it.
 */
export function formFields(schema: unknown): [string, FieldSchema, Kind, boolean][] | null {
  const s = schema as ObjectSchema | null;
  if (s === null || typeof s !== 'object' || s.type !== 'object' || s.properties === undefined) {
    return null;
  }
  const fields: [string, FieldSchema, Kind, boolean][] = [];
  for (const [name, field] of Object.entries(s.properties)) {
    const kind = kindOf(field);
    if (kind === null) return null;
    fields.push([name, field, kind, s.required?.includes(name) ?? false]);
  }
  return fields;
}

/** Form values (strings, as inputs hold them) as the data object the schema describes. */
export function formData(
  fields: NonNullable<ReturnType<typeof formFields>>,
  values: Record<string, string>,
): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const [name, , kind] of fields) {
    const raw = values[name] ?? '';
    if (kind === 'boolean') data[name] = raw === 'true';
    else if (raw === '') continue;
    else if (kind === 'number' || kind === 'integer') data[name] = Number(raw);
    else data[name] = raw;
  }
  return data;
}

/** The inputs of a response schema's fields, labelled by title (or name) and described. */
export function SchemaFields({
  id,
  fields,
  values,
  onChange,
  schema,
}: {
  id: string;
  fields: NonNullable<ReturnType<typeof formFields>>;
  values: Record<string, string>;
  onChange: (values: Record<string, string>) => void;
  schema: unknown;
}) {
  const set = (name: string, value: string) => onChange({ ...values, [name]: value });
  return (
    <fieldset class="schema-form">
      <legend>Answer data</legend>
      {fields.map(([name, field, kind, required]) => {
        const inputId = `${id}-f-${name}`;
        const label = `${field.title ?? name}${required ? ' *' : ''}`;
        const value = values[name] ?? '';
        return (
          <div key={name} class="schema-field">
            {kind === 'boolean' ? (
              <label class="choice">
                <input
                  id={inputId}
                  type="checkbox"
                  checked={value === 'true'}
                  onChange={(e) => set(name, String(e.currentTarget.checked))}
                />
                {label}
              </label>
            ) : (
              <>
                <label for={inputId}>{label}</label>
                {kind === 'enum' ? (
                  <select
                    id={inputId}
                    value={value}
                    required={required}
                    onChange={(e) => set(name, e.currentTarget.value)}
                  >
                    <option value="">—</option>
                    {(field.enum as string[]).map((v) => (
                      <option key={v} value={v}>
                        {v}
                      </option>
                    ))}
                  </select>
                ) : kind === 'string' ? (
                  <input
                    id={inputId}
                    type="text"
                    required={required}
                    value={value}
                    onInput={(e) => set(name, e.currentTarget.value)}
                  />
                ) : (
                  <input
                    id={inputId}
                    type="number"
                    step={kind === 'integer' ? '1' : 'any'}
                    required={required}
                    value={value}
                    onInput={(e) => set(name, e.currentTarget.value)}
                  />
                )}
              </>
            )}
            {field.description !== undefined && <p class="muted hint">{field.description}</p>}
          </div>
        );
      })}
      <details>
        <summary>Schema</summary>
        <Json value={schema} />
      </details>
    </fieldset>
  );
}
