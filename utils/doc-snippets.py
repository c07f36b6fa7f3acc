#!/usr/bin/env python3
"""Runs the commands and snippets of a markdown document (test/Docs).

Every fenced block of the document is one of:

* ```sh: shell commands, one a line (a trailing `\\` continues one), run in
  order as one bash script (a variable one sets is there for the next) in a
  scratch directory that has `build`, `examples` and `docs` of the tree
  under test, with the build's tools and its virtual environment's `python`
  first on PATH, so `build/bin/tile-run examples/...` runs as the document
  shows it. Each must exit 0.
* ```output: what the command before it prints: each line of the block must
  be a line of its output (stdout and stderr), in this order, with others
  between (a line may start with a directory the document leaves out); a
  line `...` says only that more is left out.
* ```tile FILE / ```python FILE: a .tile kernel or a Python script the text
  tells the reader to save: written as FILE for the commands after it.
  A .tile block without a file is compiled (`tile-translate --import-tile`);
  Python blocks run in order, each in the namespace the ones before it left
  (as a reader pasting them into one session), in the build's virtual
  environment.
* ```c++ and ```cmake: the C++ snippets are compiled, linked and run, each
  as the body of the main function of a program built with the document's
  cmake block (find_package(Tile) and target_link_libraries) against the
  build tree.
* any other language (mlir, json, text, ...) is not run, and is listed.

A command or block that cannot run here (it needs a GPU, writes an install
prefix, or is the test run itself) says so where a reader sees it: a
comment `# untested: REASON` at the end of the command, or as the first
line of the block (`// untested: REASON` in C++). Those are listed as
skipped with their reason, so a test can check the list.

usage: doc-snippets.py DOC.md --source SRC --build BUILD --work DIR
"""

import argparse
import os
import re
import shutil
import subprocess
import sys

FENCE = re.compile(r"^```\s*([^\s`]*)\s*(\S*)\s*$")
UNTESTED = re.compile(r"(?:#|//)\s*untested:\s*(.*?)\s*$")


class Block:
    def __init__(self, line, lang, name, text):
        self.line, self.lang, self.name, self.text = line, lang, name, text

    def untested(self):
        """The reason on the block's first line, or None."""
        first = self.text.splitlines()[0] if self.text else ""
        match = UNTESTED.search(first)
        return match.group(1) if match and first.lstrip().startswith(
            ("#", "//")) else None


def read_blocks(path):
    blocks, lines = [], open(path, encoding="utf-8").read().splitlines()
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        start, body = i + 1, []
        i += 1
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        blocks.append(Block(start, match.group(1), match.group(2),
                            "\n".join(body) + "\n"))
        i += 1
    return blocks


def commands(block):
    """The block's commands: (line, text), continuations joined."""
    result, pending, first = [], "", None
    for offset, line in enumerate(block.text.splitlines()):
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if first is None:
            first = block.line + offset + 1
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        result.append((first, pending + line))
        pending, first = "", None
    return result


class Runner:
    def __init__(self, doc, args):
        self.doc, self.args = os.path.relpath(doc, args.source), args
        self.work = args.work
        self.failures, self.skipped, self.ran = [], [], 0
        self.last_output = None
        self.python_blocks = []

    def where(self, line):
        return f"{self.doc}:{line}"

    def fail(self, line, message):
        self.failures.append(f"{self.where(line)}: {message}")

    def skip(self, line, what, reason):
        self.skipped.append(f"{self.where(line)}: {what}: {reason}")

    def shell(self, line, command, env):
        result = subprocess.run(["bash", "-c", command], cwd=self.work,
                                env=env, capture_output=True, text=True,
                                timeout=600)
        self.ran += 1
        self.last_output = (line, result.stdout + result.stderr)
        if result.returncode != 0:
            self.fail(line, f"`{command}` exited {result.returncode}:\n"
                      + (result.stdout + result.stderr)[-2000:])

    def shell_block(self, block, env):
        """The block's commands as one bash script, as a reader pastes
        them (a variable one sets is there for the next), stopping at the
        first that fails; the commands marked untested are left out."""
        lines = block.text.splitlines()
        for line, command in commands(block):
            match = UNTESTED.search(command)
            if match:
                self.skip(line, f"`{command.split(' #')[0].strip()}`",
                          match.group(1))
                for i in range(command.count("\n") + 1):
                    lines[line - block.line - 1 + i] = ""
            else:
                self.ran += 1
        header = ["set -eE",
                  "trap 'echo \"doc-snippets: line $LINENO failed\" >&2' ERR"]
        result = subprocess.run(["bash", "-c", "\n".join(header + lines)],
                                cwd=self.work, env=env, capture_output=True,
                                text=True, timeout=900)
        output = result.stdout + result.stderr
        self.last_output = (block.line, output)
        if result.returncode != 0:
            failed = re.search(r"doc-snippets: line (\d+) failed", output)
            line = block.line + (int(failed.group(1)) - len(header)
                                 if failed else 1)
            self.fail(line, f"the command exited {result.returncode}:\n" +
                      output[-2000:])

    def check_output(self, block):
        if self.last_output is None:
            self.fail(block.line, "an output block follows no command")
            return
        line, output = self.last_output
        got = [text.strip() for text in output.splitlines()]
        at = 0
        for want in block.text.splitlines():
            want = want.strip()
            if not want or want == "...":
                continue
            # A path the document writes relative may print absolute.
            while at < len(got) and got[at] != want and \
                    not got[at].endswith("/" + want):
                at += 1
            if at == len(got):
                self.fail(block.line, f"the output of the command at line "
                          f"{line} has no line\n  {want}\n(in this order); "
                          f"it printed:\n{output[-3000:]}")
                return
            at += 1
        self.ran += 1

    def python(self, env):
        """The Python blocks, in order, in one namespace: each a file, so
        that tile.kernel reads its source as from a reader's script."""
        if not self.python_blocks:
            return
        paths = []
        for block, name in self.python_blocks:
            path = os.path.join(self.work, name or f"snippet_{block.line}.py")
            if not name:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(block.text)
            paths.append((block.line, path))
        driver = os.path.join(self.work, "run_snippets.py")
        with open(driver, "w", encoding="utf-8") as f:
            f.write("import runpy, sys, traceback\nnamespace = {}\n"
                    "for line, path in %r:\n"
                    "    try:\n"
                    "        namespace = runpy.run_path(path, namespace,"
                    " '__main__')\n"
                    "    except BaseException:\n"
                    "        traceback.print_exc()\n"
                    "        print(f'FAILED {line}')\n"
                    "        sys.exit(1)\n" % (paths,))
        result = subprocess.run([self.args.python, driver], cwd=self.work,
                                env=env, capture_output=True, text=True,
                                timeout=900)
        self.ran += len(paths)
        if result.returncode != 0:
            failed = re.search(r"FAILED (\d+)", result.stdout)
            self.fail(int(failed.group(1)) if failed else 0,
                      "the Python block failed:\n" +
                      (result.stdout + result.stderr)[-3000:])

    def cxx(self, blocks, cmake):
        """Each C++ block as a program linked as the cmake block says."""
        if not blocks:
            return
        if cmake is None:
            self.fail(blocks[0].line, "a C++ block without a cmake block "
                      "that says what it links")
            return
        project = os.path.join(self.work, "cxx")
        os.makedirs(project, exist_ok=True)
        lists = ["cmake_minimum_required(VERSION 3.20)",
                 "project(doc-snippets LANGUAGES CXX)",
                 "set(CMAKE_CXX_STANDARD 17)"]
        targets = []
        for block in blocks:
            name = f"snippet-{block.line}"
            includes = [line for line in block.text.splitlines()
                        if line.startswith("#include")]
            body = [line for line in block.text.splitlines()
                    if not line.startswith("#include")]
            with open(os.path.join(project, name + ".cpp"), "w") as f:
                f.write("\n".join(includes) + "\n\nint main() {\n" +
                        "\n".join("  " + line for line in body) +
                        "\n  return 0;\n}\n")
            targets.append(name)
        # The document's own lines, its program name standing for each
        # snippet's.
        text = cmake.text
        program = re.search(r"target_link_libraries\((\S+)", text)
        if not program:
            self.fail(cmake.line, "the cmake block links nothing")
            return
        for name in targets:
            lists.append(f"add_executable({name} {name}.cpp)")
            lists.append(f"target_compile_options({name} PRIVATE "
                         "-fno-exceptions)")
        for line in text.splitlines():
            if line.startswith("target_link_libraries"):
                for name in targets:
                    lists.append(line.replace(program.group(1), name, 1))
            elif line.strip():
                lists.insert(3, line)
        with open(os.path.join(project, "CMakeLists.txt"), "w") as f:
            f.write("\n".join(lists) + "\n")
        build = os.path.join(project, "build")
        steps = [[self.args.cmake, "-G", "Ninja", "-S", project, "-B", build,
                  f"-DTile_DIR={self.args.build}",
                  f"-DCMAKE_CXX_COMPILER={self.args.cxx}"],
                 [self.args.cmake, "--build", build]]
        for step in steps:
            result = subprocess.run(step, capture_output=True, text=True,
                                    timeout=900)
            if result.returncode != 0:
                self.fail(blocks[0].line, "the C++ blocks do not build as "
                          "the cmake block says:\n" +
                          (result.stdout + result.stderr)[-3000:])
                return
        for block, name in zip(blocks, targets):
            result = subprocess.run([os.path.join(build, name)], cwd=self.work,
                                    capture_output=True, text=True,
                                    timeout=600)
            self.ran += 1
            self.last_output = (block.line, result.stdout + result.stderr)
            if result.returncode != 0:
                self.fail(block.line, f"the C++ block exited "
                          f"{result.returncode}:\n" +
                          (result.stdout + result.stderr)[-2000:])

    def run(self, blocks):
        env = dict(os.environ)
        # The build's tools, and its virtual environment's python, as in a
        # shell where the reader activated it.
        env["PATH"] = os.pathsep.join([
            os.path.join(self.args.build, "bin"),
            os.path.dirname(self.args.python), env.get("PATH", "")])
        for name in ("examples", "docs"):
            link = os.path.join(self.work, name)
            if not os.path.lexists(link):
                os.symlink(os.path.join(self.args.source, name), link)
        link = os.path.join(self.work, "build")
        if not os.path.lexists(link):
            os.symlink(self.args.build, link)
        cxx_blocks, cmake = [], None
        for block in blocks:
            lang = block.lang.lower()
            reason = block.untested()
            if reason is not None:
                self.skip(block.line, f"{lang or 'text'} block", reason)
                continue
            if lang in ("sh", "bash", "shell"):
                self.shell_block(block, env)
            elif lang == "output":
                self.check_output(block)
            elif lang == "tile":
                if block.name:
                    with open(os.path.join(self.work, block.name), "w") as f:
                        f.write(block.text)
                    self.ran += 1
                    continue
                path = os.path.join(self.work, f"snippet_{block.line}.tile")
                with open(path, "w") as f:
                    f.write(block.text)
                self.shell(block.line, "tile-translate --import-tile "
                           f"{os.path.basename(path)} -o /dev/null", env)
            elif lang == "python":
                if block.name:
                    with open(os.path.join(self.work, block.name), "w") as f:
                        f.write(block.text)
                self.python_blocks.append((block, block.name))
            elif lang in ("c++", "cpp"):
                cxx_blocks.append(block)
            elif lang == "cmake":
                cmake = block
            else:
                self.skip(block.line, f"{lang or 'text'} block",
                          "not a language the doc tests run")
        self.python(env)
        self.cxx(cxx_blocks, cmake)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("doc")
    parser.add_argument("--source", required=True)
    parser.add_argument("--build", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--cmake", default="cmake")
    parser.add_argument("--cxx", default="c++")
    args = parser.parse_args()
    args.source, args.build = (os.path.abspath(args.source),
                               os.path.abspath(args.build))
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    runner = Runner(os.path.abspath(args.doc), args)
    runner.run(read_blocks(args.doc))
    for line in runner.skipped:
        print(f"skipped {line}")
    for line in runner.failures:
        print(f"FAILED {line}")
    print(f"{runner.doc}: {runner.ran} run, {len(runner.skipped)} skipped, "
          f"{len(runner.failures)} failed")
    return 1 if runner.failures else 0


if __name__ == "__main__":
    sys.exit(main())
