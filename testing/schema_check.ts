/**
 * A small checker of a JSON value against an openapi.yaml schema (the subset the generated
 * contract uses: `$ref`, `allOf`, `anyOf`/`oneOf`, `type` with `null`, `enum`, `const`,
 * `properties`, `required`, `additionalProperties`, `items`), so a test can hold what the service
 * answers to what the contract promises. A field the schema does not name counts as a problem
 * too: a client reading the contract would not know it.
 *
 * @example
 * const problems = checkSchema(doc, schema, await res.json());
 */

// deno-lint-ignore no-explicit-any
type Schema = any;

/** Problems of `value` against `schema` (empty when it conforms), each with its JSON path. */
export function checkSchema(doc: Schema, schema: Schema, value: unknown, path = "$"): string[] {
  const out: string[] = [];
  check(doc, schema, value, path, out);
  return out;
}

function deref(doc: Schema, s: Schema): Schema {
  let guard = 0;
  while (s?.$ref && guard++ < 20) s = doc.components.schemas[s.$ref.split("/").pop()];
  return s;
}

/** Every property an object schema names, through `allOf` parts and `$ref`s. */
function named(doc: Schema, s: Schema): Set<string> | null {
  s = deref(doc, s);
  if (!s) return null;
  if (s.additionalProperties !== undefined && s.additionalProperties !== false) return null;
  const out = new Set<string>(Object.keys(s.properties ?? {}));
  for (const part of s.allOf ?? []) {
    const inner = named(doc, part);
    if (inner === null) return null;
    for (const k of inner) out.add(k);
  }
  return out;
}

function typeOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

function check(doc: Schema, s: Schema, v: unknown, path: string, out: string[], part = false) {
  s = deref(doc, s);
  if (!s || typeof s !== "object") return;
  for (const p of s.allOf ?? []) check(doc, p, v, path, out, true);
  const alts = s.anyOf ?? s.oneOf;
  if (alts) {
    const fits = alts.some((a: Schema) => checkSchema(doc, a, v, path).length === 0);
    if (!fits) out.push(`${path}: matches none of the ${alts.length} alternatives`);
  }
  if (s.type !== undefined) {
    const types: string[] = Array.isArray(s.type) ? s.type : [s.type];
    const t = typeOf(v);
    if (!types.some((x) => x === t || (x === "number" && t === "integer"))) {
      out.push(`${path}: ${t}, the contract says ${types.join(" or ")}`);
      return;
    }
  }
  if (s.enum && !s.enum.some((e: unknown) => e === v)) {
    out.push(`${path}: ${JSON.stringify(v)} is not one of ${JSON.stringify(s.enum)}`);
  }
  if ("const" in s && s.const !== v) out.push(`${path}: ${JSON.stringify(v)} is not ${s.const}`);
  if (Array.isArray(v) && s.items) {
    v.slice(0, 5).forEach((x, i) => check(doc, s.items, x, `${path}[${i}]`, out));
  }
  if (typeOf(v) !== "object") return;
  const o = v as Record<string, unknown>;
  for (const r of s.required ?? []) if (!(r in o)) out.push(`${path}.${r}: required, missing`);
  for (const [k, val] of Object.entries(o)) {
    if (s.properties?.[k]) check(doc, s.properties[k], val, `${path}.${k}`, out);
    else if (typeof s.additionalProperties === "object") {
      check(doc, s.additionalProperties, val, `${path}.${k}`, out);
    }
  }
  // Undocumented fields, judged once on the whole object (an `allOf` part names only its share).
  if (part || !(s.properties || s.allOf)) return;
  const known = named(doc, s);
  if (known === null) return;
  for (const k of Object.keys(o)) if (!known.has(k)) out.push(`${path}.${k}: not in the contract`);
}
