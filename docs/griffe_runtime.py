"""A Griffe extension for the API reference (mkdocs.yml: mkdocstrings' `extensions:`).

The reference is read from the imported library (`force_inspection`): the primitives are Op
objects built by defop, whose docstring and signature exist only at run time. What exists only
in the source is taken from it: the docstring written under a module or class attribute
(`OPS = {}` then a string), shown with the source's expression rather than a repr of the
value. An attribute's `__doc__` that is its type's (str's for `name = "batch"`) is no
docstring of its own, so such an entry is left out (`show_if_no_docstring: false`).
"""
import functools
import importlib
import inspect
import pathlib
import types

import griffe


@functools.cache
def _static_module(module_name, filepath):
    path = pathlib.Path(filepath)
    return griffe.visit(module_name, path, path.read_text(), docstring_parser="google")


def _source_member(module_name, name):
    """The statically read `module_name`.`name`, followed through imports, or None."""
    for _ in range(5):
        try:
            module = importlib.import_module(module_name)
            member = _static_module(module_name, module.__file__).get_member(name)
        except (ImportError, KeyError, ValueError, TypeError, SyntaxError):
            return None
        if not member.is_alias:
            return member
        target, _, name = member.target_path.rpartition(".")
        if target.startswith(module_name + ".") and not hasattr(module, "__path__"):
            # a relative import in a plain module (griffe resolves it as if in a package)
            target = module_name.rpartition(".")[0] + target[len(module_name):]
        module_name = target
    return None


def _source_docstring(attr):
    """The docstring written under `attr` in the source, and the expression assigned to it."""
    module = attr.module
    member = _source_member(module.path, attr.path[len(module.path) + 1:])
    return (member.docstring, member.value) if member is not None else (None, None)


_KINDS = {inspect.Parameter.POSITIONAL_ONLY: griffe.ParameterKind.positional_only,
          inspect.Parameter.POSITIONAL_OR_KEYWORD: griffe.ParameterKind.positional_or_keyword,
          inspect.Parameter.VAR_POSITIONAL: griffe.ParameterKind.var_positional,
          inspect.Parameter.KEYWORD_ONLY: griffe.ParameterKind.keyword_only,
          inspect.Parameter.VAR_KEYWORD: griffe.ParameterKind.var_keyword}


def _docstring(text, parent, agent):
    return griffe.Docstring(inspect.cleandoc(text), parent=parent, parser=agent.docstring_parser,
                            parser_options=agent.docstring_options)


def _namespace_as_class(attr, namespace, agent):
    """A griffe Class standing for `namespace`, with a method per function it holds."""
    cls = griffe.Class(attr.name, lineno=attr.lineno, endlineno=attr.endlineno)
    cls.docstring = attr.docstring and _docstring(attr.docstring.value, cls, agent)
    for name, fn in vars(namespace).items():
        signature = inspect.signature(fn)
        method = griffe.Function(name, parameters=griffe.Parameters(*(
            griffe.Parameter(q.name, kind=_KINDS[q.kind],
                             default=None if q.default is q.empty else repr(q.default))
            for q in signature.parameters.values())))
        method.docstring = fn.__doc__ and _docstring(fn.__doc__, method, agent)
        cls.set_member(name, method)
    return cls


class RuntimeObjectsWithSourceDocstrings(griffe.Extension):
    def on_attribute_instance(self, *, node, attr, agent, **kwargs):
        inherited = getattr(type(getattr(node, "obj", None)), "__doc__", None)
        if attr.docstring is not None and (isinstance(inherited, str) and (
                attr.docstring.value == inspect.cleandoc(inherited))
                or attr.docstring.value.startswith("Alias for field number")):  # NamedTuple's
            attr.docstring = None
        if attr.docstring is None:
            docstring, value = _source_docstring(attr)
            if docstring is not None:      # the source's expression, not a repr of the value
                attr.value = value
                attr.docstring = _docstring(docstring.value, attr, agent)
        if isinstance(getattr(node, "obj", None), types.SimpleNamespace) and attr.parent:
            attr.parent.set_member(attr.name, _namespace_as_class(attr, node.obj, agent))
