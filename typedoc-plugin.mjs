// @ts-check
/**
 * A TypeDoc plugin for lib/index.ts's `export =`. The package exports the RedisSMQ class itself
 * (as rsmq does) merged with a namespace whose members are type aliases of the real classes and
 * interfaces (`export type QueueMessage = Types.QueueMessage`). Left alone, TypeDoc documents
 * those one-line aliases, leaves the classes and interfaces out ("referenced but not included"),
 * and adds three members named `export=`. This plugin documents what a user actually gets:
 * each alias that only renames a declaration of this project is replaced by that declaration
 * (the class with its constructor and methods, the interface with its properties, under the name
 * the package exports it by), and the `export=` members are dropped; the package comment of
 * lib/index.ts says that `require("rsmq-next")` is the RedisSMQ class.
 */
import ts from "typescript";
import { Converter, ReflectionKind } from "typedoc";

/** @param {import("typedoc").Application} app */
export function load(app) {
  app.converter.on(Converter.EVENT_CREATE_DECLARATION, (context, reflection) => {
    if (!reflection.kindOf(ReflectionKind.TypeAlias) || !reflection.parent?.isProject() || reflection.name === "export=") return;
    const alias = context.getSymbolFromReflection(reflection);
    const target = alias && renamedDeclaration(context.checker, alias);
    if (!target) return;
    // The alias is still being filled in: replace it once this conversion pass is done.
    context.converter.deferConversion(() => {
      context.project.removeReflection(reflection);
      context.converter.convertSymbol(context.withScope(context.project), target, alias);
    });
  });
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    for (const reflection of [...(context.project.children ?? [])]) {
      if (reflection.name === "export=") context.project.removeReflection(reflection);
    }
  });
}

/**
 * The symbol `alias` only renames: `type A<T> = B<T>` (same type parameters, in order) where B
 * is a class, interface or type alias declared in this project's own sources.
 *
 * @param {ts.TypeChecker} checker
 * @param {ts.Symbol} alias
 * @returns {ts.Symbol | undefined}
 */
function renamedDeclaration(checker, alias) {
  const declaration = alias.declarations?.find(ts.isTypeAliasDeclaration);
  if (!declaration || !ts.isTypeReferenceNode(declaration.type)) return undefined;
  const own = (declaration.typeParameters ?? []).map((parameter) => parameter.name.text);
  const passed = (declaration.type.typeArguments ?? []).map((argument) => argument.getText());
  if (own.join() !== passed.join()) return undefined;
  let target = checker.getSymbolAtLocation(declaration.type.typeName);
  if (target && target.flags & ts.SymbolFlags.Alias) target = checker.getAliasedSymbol(target);
  if (!target || !(target.flags & (ts.SymbolFlags.Class | ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias))) {
    return undefined;
  }
  const ownSources = target.declarations?.every((node) => !node.getSourceFile().fileName.includes("/node_modules/"));
  return ownSources ? target : undefined;
}
