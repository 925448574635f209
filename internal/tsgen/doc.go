// Package tsgen renders the tool catalog that code mode shows a model: a
// TypeScript declaration of the global tools object, derived from each
// tool's input and output JSON Schemas, followed by a short program that
// calls the tools.
//
// Rendering is deterministic. Object members follow the order of the JSON
// text they come from and no output depends on Go map iteration, so the same
// tools always give the same bytes. Callers rely on that to compare catalogs
// between steps and to keep cached prompt prefixes stable.
//
// Schema conversion is bounded: nesting deeper than eight levels renders as
// unknown (or null in samples), and each local $ref is followed at most once
// per conversion, so recursive schemas render finitely.
//
// The output follows the code mode catalog of the TypeScript AI SDK, with a
// few deliberate differences:
//   - Object members keep the order of the JSON text; JavaScript would list
//     integer-like keys such as "1" first.
//   - Numbers are printed as written in the schema or example ("1.50" stays
//     "1.50"), where JavaScript would reformat them.
//   - An empty allOf renders as unknown rather than as nothing.
//   - A blank description adds no empty comment, and a blank description
//     falls back to the title.
//   - Multi-line types in an index signature are indented like other members.
//   - Example variable names never repeat and avoid names JavaScript cannot
//     bind there (reserved words, tools, Promise) by taking a numeric suffix.
package tsgen
