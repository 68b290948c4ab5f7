"""Seeded random templates over the supported subset, for the differential
test against jinja2: expressions mix literals, context names, operators,
filters, tests, attribute/subscript access and conditionals; statements mix
output, if/elif/else, for (with filter and else), set, namespace, macros,
break/continue and whitespace control."""
import random

NAMES = ["s", "e", "u", "n", "m", "f", "z", "t", "no", "l", "ls", "d", "msgs", "nested", "ws", "missing"]
STRINGS = ["''", "'a'", "'Hello'", "'x y'", "'é'", "'\\n'", "'user'", "'role'", "'1'", "'2.5'", "' pad '"]
NUMBERS = ["0", "1", "2", "-1", "3", "0.5", "2.0", "1e3", "7"]
FILTERS = ["length", "trim", "upper", "lower", "string", "list", "first", "last", "tojson", "int", "float",
           "abs", "unique|list", "reverse|list", "sort", "join", "join(',')", "default('D')", "d(0, true)",
           "replace('l', 'L')", "items|list", "dictsort", "title", "capitalize", "round", "wordcount",
           "selectattr('role', 'equalto', 'user')|list", "map(attribute='role')|list", "select|list",
           "reject('none')|list", "tojson(indent=2)", "indent(2)", "count", "escape", "safe"]
TESTS = ["defined", "undefined", "none", "string", "number", "integer", "float", "mapping", "iterable",
         "sequence", "boolean", "true", "false", "odd", "even", "divisibleby(3)", "equalto 'user'", "in l",
         "lower", "upper", "eq 1", "gt 1"]
BINOPS = ["+", "-", "*", "/", "//", "%", "~", "==", "!=", "<", ">=", "and", "or", "in", "not in"]
METHODS = ["upper()", "lower()", "strip()", "split()", "split(',')", "startswith('H')", "endswith('o')",
           "replace('a', 'b')", "find('l')", "count('l')", "title()", "get('a')", "get('role', 'R')",
           "items()|list", "keys()|list", "values()|list", "rstrip('d')", "lstrip()", "rsplit(None, 1)",
           "index(1)", "isdigit()"]


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.loop_vars = []

    def atom(self):
        r = self.r.random()
        if r < 0.35:
            return self.r.choice(NAMES + self.loop_vars * 3)
        if r < 0.55:
            return self.r.choice(STRINGS)
        if r < 0.7:
            return self.r.choice(NUMBERS)
        if r < 0.78:
            return self.r.choice(["true", "false", "none", "True", "None"])
        if r < 0.86:
            return "[" + ", ".join(self.expr(1) for _ in range(self.r.randint(0, 3))) + "]"
        if r < 0.9:
            return "{" + ", ".join(f"{self.r.choice(STRINGS)}: {self.expr(1)}" for _ in range(self.r.randint(0, 2))) + "}"
        if r < 0.95 and self.loop_vars:
            return "loop." + self.r.choice(["index", "index0", "first", "last", "length", "revindex", "previtem", "nextitem"])
        return "(" + self.expr(1) + ")"

    def postfix(self, e):
        r = self.r.random()
        if r < 0.15:
            return f"{e}.{self.r.choice(['role', 'content', 'a', 'b', 'items', 'x', '0'])}"
        if r < 0.3:
            return f"{e}[{self.r.choice(['0', '-1', '1', chr(39) + 'role' + chr(39), chr(39) + 'a' + chr(39)])}]"
        if r < 0.4:
            return f"{e}[{self.r.choice(['1:', ':2', '::-1', '1:-1', '::2'])}]"
        if r < 0.5:
            return f"{e}.{self.r.choice(METHODS)}"
        return e

    def expr(self, depth=0):
        if depth > 2:
            return self.atom()
        r = self.r.random()
        if r < 0.3:
            return self.postfix(self.atom())
        if r < 0.5:
            return f"{self.expr(depth + 1)} | {self.r.choice(FILTERS)}"
        if r < 0.6:
            neg = self.r.choice(["", "not "])
            return f"{self.expr(depth + 1)} is {neg}{self.r.choice(TESTS)}"
        if r < 0.8:
            return f"{self.expr(depth + 1)} {self.r.choice(BINOPS)} {self.expr(depth + 1)}"
        if r < 0.88:
            return f"{self.expr(depth + 1)} if {self.expr(depth + 1)} else {self.expr(depth + 1)}"
        if r < 0.93:
            return f"not {self.expr(depth + 1)}"
        if r < 0.97:
            return f"-{self.atom()}"
        return f"{self.expr(depth + 1)} if {self.expr(depth + 1)}"

    def ws(self):
        return self.r.choice(["", "", "-", "+"]) if self.r.random() < 0.4 else ""

    def text(self):
        return self.r.choice(["", "x", " ", "\n", "  \n  ", "a\n    ", "\n\n", "\t"])

    def block(self, depth):
        parts = []
        for _ in range(self.r.randint(1, 4)):
            parts.append(self.text())
            parts.append(self.stmt(depth))
        return "".join(parts)

    def tag(self, body):
        return "{%" + self.ws() + " " + body + " " + self.r.choice(["", "-"]) + "%}"

    def stmt(self, depth):
        r = self.r.random()
        if depth > 2 or r < 0.4:
            return "{{" + self.r.choice(["", "-"]) + " " + self.expr() + " " + self.r.choice(["", "-"]) + "}}"
        if r < 0.55:
            s = self.tag(f"if {self.expr()}") + self.block(depth + 1)
            if self.r.random() < 0.4:
                s += self.tag(f"elif {self.expr()}") + self.block(depth + 1)
            if self.r.random() < 0.4:
                s += self.tag("else") + self.block(depth + 1)
            return s + self.tag("endif")
        if r < 0.72:
            var = self.r.choice(["x", "y", "item"])
            seq = self.r.choice(["l", "ls", "msgs", "d", "s", "u", "range(3)", "d.items()", "[]", "missing", "no", self.expr(2)])
            target = f"{var}, v2" if seq == "d.items()" and self.r.random() < 0.7 else var
            head = f"for {target} in {seq}"
            if self.r.random() < 0.3:
                head += f" if {self.expr(2)}"
            self.loop_vars.append(var)
            body = self.block(depth + 1)
            if self.r.random() < 0.2:
                body += self.tag(f"if {self.expr(2)}") + self.tag(self.r.choice(["break", "continue"])) + self.tag("endif")
            self.loop_vars.pop()
            s = self.tag(head) + body
            if self.r.random() < 0.3:
                s += self.tag("else") + self.block(depth + 1)
            return s + self.tag("endfor")
        if r < 0.82:
            return self.tag(f"set {self.r.choice(['s', 'x', 'n', 'acc'])} = {self.expr()}")
        if r < 0.9:
            return (self.tag("set ns = namespace(c=0, t='')") + self.tag("for q in l") +
                    self.tag(f"set ns.c = ns.c + {self.r.choice(['1', 'q', 'loop.index'])}") +
                    self.tag(f"set ns.t = ns.t ~ {self.expr(2)}") + self.tag("endfor") + "{{ ns.c }}{{ ns.t }}")
        if r < 0.95:
            return (self.tag(f"macro mac(a, b={self.r.choice(NUMBERS)})") + self.block(depth + 1) + "{{ a }}{{ b }}" +
                    self.tag("endmacro") + "{{ mac(" + self.expr(2) + ") }}")
        return "{# " + self.r.choice(["c", "{{ x }}", ""]) + " " + self.r.choice(["", "-"]) + "#}"

    def template(self):
        return self.block(0)


def templates(seed, count):
    return [Gen(seed * 100003 + i).template() for i in range(count)]
