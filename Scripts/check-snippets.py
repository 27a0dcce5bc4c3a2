#!/usr/bin/env python3
# This source file is part of the ActionStack open source project
#
# Copyright (c) 2026 the ActionStack project authors
# Licensed under Apache License v2.0
#
# See LICENSE for license information
#
# SPDX-License-Identifier: Apache-2.0

"""Compiles and runs every ```swift sample of the README, the DocC articles and the doc comments.

Where the samples come from:
- README.md and Sources/ActionStack/ActionStack.docc/*.md: each sample is a complete program
  (it starts with its imports) and is compiled as it is.
- The doc comments (`///` lines) of the library's three modules' sources (Sources/ActionStack,
  Sources/ActionStackCore and Sources/ActionStackArchive, **/*.swift): a sample that imports
  ActionStack is a complete program too. Any other is a fragment that uses a few names defined
  elsewhere (`stack`, `figure`, `document`, ...): Scripts/snippet-prelude.swift, which declares
  them, is put in front of it. Only doc-comment samples get the prelude.

Each sample becomes an executable in a generated package (.build-snippets/) that depends on this
checkout's ActionStack library and is compiled in the Swift 6 language mode (the tools version of
Package.swift, `.swiftLanguageMode(.v6)`), so a sample can never drift from the API and never has a data-race
or isolation error that Swift 6 code would have. Compiler errors point at the sample's own file
and line (each sample starts with a `#sourceLocation` directive). A line of the form
`print(...)   // expected output` is also checked: the sample's printed lines must match those
comments, in order. Samples that are not meant to run use another fence (```text, ```sh).

Two kinds of sample are checked differently:
- A sample that imports XCTest (Apple-style test code, as in the migration article) is run as a
  test suite: the checker appends an `XCTMain` call (swift-corelibs-xctest, so Linux only) that
  runs every `func test...() async` method of its `XCTestCase` subclasses, and the sample fails if
  a test fails. Test methods must be `async` (see the migration article for why).
- A sample whose first line is `// swift-tools-version: ...` is a package manifest. It is loaded
  with `swift package describe` as the manifest of a package `App` whose sibling folder
  `../ActionStack` is this checkout, so a dependency line such as `.package(path: "../ActionStack")`
  and the product it names must resolve. Its tools version must be Package.swift's, and its
  `platforms:` must be Package.swift's (ActionStack's minimums), so that a newcomer who copies it
  gets a manifest that builds ActionStack.
- A sample with a line `// Run this program twice...` is run twice, in one fresh temporary
  directory (TMPDIR), so that what the first run saves the second reads: its `// expected output`
  comments are checked against the first run's output followed by the second's.

The toolchain is stated once: Package.swift's tools version. Besides the manifests, every "Swift
N.N tools", "Swift N.N toolchain" and "Swift N.N or later" of the README and the articles must
name it.

Usage: Scripts/check-snippets.py
"""
import os
import pathlib
import re
import subprocess
import sys
import tempfile

root = pathlib.Path(__file__).resolve().parent.parent
articles = [root / "README.md"] + sorted((root / "Sources/ActionStack/ActionStack.docc").glob("*.md"))
# The library is three modules (the umbrella ActionStack re-exports the other two); the doc comments
# of all three are the documentation of `import ActionStack`.
swift_sources = sorted(
    file
    for module in ("ActionStack", "ActionStackCore", "ActionStackArchive")
    for file in (root / "Sources" / module).rglob("*.swift")
)
prelude_path = root / "Scripts/snippet-prelude.swift"
prelude = prelude_path.read_text()
work = root / ".build-snippets"
package = work / "package"

# The one toolchain truth: the manifest's tools version and platforms.
manifest_text = (root / "Package.swift").read_text()
tools_version = re.match(r"// swift-tools-version: *(\d+\.\d+)", manifest_text).group(1)
platform_entry = re.compile(r"\.(macOS|iOS|tvOS|watchOS|visionOS|macCatalyst)\(\.(v[\d_]+)\)")


def platforms_of(manifest):
    """The entries of a manifest's `platforms:` list, in order, or None when it has none."""
    found = re.search(r"platforms:\s*\[(.*?)\]", manifest, re.S)
    return platform_entry.findall(found.group(1)) if found else None


package_platforms = platforms_of(manifest_text)

fence_open = re.compile(r"^(\s*)```swift\s*$")
fence_close = re.compile(r"^\s*```\s*$")


def samples_in(lines, first_line_number):
    """The ```swift samples in `lines`: (line number of the first code line, code)."""
    found = []
    index = 0
    while index < len(lines):
        opening = fence_open.match(lines[index])
        if not opening:
            index += 1
            continue
        indent = len(opening.group(1))
        start = index + 1
        end = start
        while end < len(lines) and not fence_close.match(lines[end]):
            end += 1
        if end == len(lines):
            sys.exit(f"unclosed ```swift fence at line {first_line_number + index}")
        code = "\n".join(
            line[indent:] if line[:indent].strip() == "" else line.lstrip() for line in lines[start:end]
        )
        found.append((first_line_number + start, code + "\n"))
        index = end + 1
    return found


def xctest_driver(where, code):
    """An `XCTMain` call that runs every async test method of the sample's XCTestCase subclasses."""
    entries = []
    for match in re.finditer(r"class\s+(\w+)\s*:\s*XCTestCase\s*\{", code):
        rest = code[match.end() :]
        following = re.search(r"^(?:@\w+\s+)*(?:final\s+)?class\s", rest, re.M)
        body = rest[: following.start()] if following else rest
        if re.search(r"func\s+test\w*\(\)\s*(?:throws\s*)?\{", body):
            sys.exit(f"{where}: a test method is not async; Linux XCTest needs async test methods here")
        tests = re.findall(r"func\s+(test\w*)\(\)\s*async", body)
        calls = ", ".join(
            f'("{test}", asyncTest {{ (test: {match.group(1)}) in {{ try await test.{test}() }} }})' for test in tests
        )
        entries.append(f"testCase([{calls}])")
    if not entries:
        sys.exit(f"{where}: imports XCTest but has no XCTestCase subclass with async test methods")
    return "\n// Appended by Scripts/check-snippets.py: run the tests above.\nXCTMain([" + ", ".join(entries) + "])\n"


snippets = []  # (where, file relative to root, first code line, code, uses the prelude)
for source in articles:
    relative = source.relative_to(root)
    for line, code in samples_in(source.read_text().splitlines(), 1):
        snippets.append((f"{relative}:{line}", relative, line, code, False))

doc_line = re.compile(r"^\s*/// ?(.*)$")
for source in swift_sources:
    relative = source.relative_to(root)
    lines = source.read_text().splitlines()
    index = 0
    while index < len(lines):
        if not doc_line.match(lines[index]):
            index += 1
            continue
        start = index
        while index < len(lines) and doc_line.match(lines[index]):
            index += 1
        comment = [doc_line.match(line).group(1) for line in lines[start:index]]
        for line, code in samples_in(comment, start + 1):
            complete = re.search(r"^import ActionStack$", code, re.M) is not None
            snippets.append((f"{relative}:{line}", relative, line, code, not complete))

if not snippets:
    sys.exit("no swift samples found")

failures = 0

# The toolchain in the prose: every "Swift N.N tools / toolchain / or later" names the manifest's.
stated = re.compile(r"Swift (\d+\.\d+)(?= tools| toolchain| or later)")
for source in articles:
    for number, text in enumerate(source.read_text().splitlines(), 1):
        for version in stated.findall(text):
            if version != tools_version:
                failures += 1
                print(
                    f"FAIL {source.relative_to(root)}:{number}: says Swift {version}; the package's tools version "
                    f"(Package.swift) is {tools_version}"
                )

# Package manifests: loaded, not built.
manifests = [snippet for snippet in snippets if snippet[3].lstrip().startswith("// swift-tools-version")]
snippets = [snippet for snippet in snippets if snippet not in manifests]
for index, (where, relative, line, code, _) in enumerate(manifests):
    version = re.match(r"\s*// swift-tools-version: *(\d+\.\d+)", code).group(1)
    if version != tools_version:
        failures += 1
        print(f"FAIL {where}: swift-tools-version {version}; Package.swift's is {tools_version}")
        continue
    if platforms_of(code) != package_platforms:
        failures += 1
        print(
            f"FAIL {where}: its platforms: {platforms_of(code)} are not ActionStack's minimums {package_platforms} "
            "(Package.swift)"
        )
        continue
    folder = work / "manifests" / f"manifest{index:02d}"
    app = folder / "App"
    if folder.exists():
        subprocess.run(["rm", "-rf", str(folder)], check=True)
    app.mkdir(parents=True)
    (folder / "ActionStack").symlink_to(root)
    (app / "Package.swift").write_text(code)
    for kind, name in re.findall(r'\.(executableTarget|target|testTarget)\(\s*name:\s*"([^"]+)"', code):
        sources = app / ("Tests" if kind == "testTarget" else "Sources") / name
        sources.mkdir(parents=True, exist_ok=True)
        (sources / "main.swift").write_text("import ActionStack\n")
    describe = subprocess.run(
        ["swift", "package", "--package-path", str(app), "describe"], capture_output=True, text=True
    )
    if describe.returncode != 0:
        failures += 1
        print(f"FAIL {where}: the manifest does not load\n{describe.stdout[-2000:]}{describe.stderr[-2000:]}")
    else:
        print(f"ok   {where} (package manifest)")

(package / "Sources").mkdir(parents=True, exist_ok=True)
for stale in (package / "Sources").iterdir():
    for file in stale.iterdir():
        file.unlink()
    stale.rmdir()
targets = []
expectations = {}
for index, (where, relative, line, code, uses_prelude) in enumerate(snippets):
    name = f"snippet{index:03d}"
    target = package / "Sources" / name
    target.mkdir(parents=True, exist_ok=True)
    text = f"// {where}\n"
    if uses_prelude:
        text += f'#sourceLocation(file: "{prelude_path.relative_to(root)}", line: 1)\n' + prelude
    text += f'#sourceLocation(file: "{relative}", line: {line})\n' + code
    if re.search(r"^import XCTest$", code, re.M):
        text += "#sourceLocation()\n" + xctest_driver(where, code)
    (target / "main.swift").write_text(text)
    expected = [m.group(1).strip() for m in re.finditer(r"^\s*print\(.*\)\s*//\s*(.+)$", code, re.M)]
    runs_twice = re.search(r"^// Run this program twice", code, re.M) is not None
    expectations[name] = (where, expected, "XCTMain(" in text, runs_twice)
    targets.append(
        f'        .executableTarget(\n            name: "{name}",\n'
        '            dependencies: [.product(name: "ActionStack", package: "ActionStack")],\n'
        "            swiftSettings: [.swiftLanguageMode(.v6)]\n        ),"
    )

(package / "Package.swift").write_text(
    f"// swift-tools-version: {tools_version}\n"
    "import PackageDescription\n"
    "let package = Package(\n"
    '    name: "Snippets",\n'
    f'    dependencies: [.package(name: "ActionStack", path: "{root}")],\n'
    "    targets: [\n" + "\n".join(targets) + "\n    ]\n)\n"
)

prelude_count = sum(1 for snippet in snippets if snippet[4])
print(
    f"building {len(snippets)} samples ({prelude_count} doc-comment fragments with the prelude) "
    f"from {len(articles)} documents and the doc comments of {len(swift_sources)} source files"
)
build = subprocess.run(["swift", "build", "--package-path", str(package)], capture_output=True, text=True)
if build.returncode != 0:
    errors = [line for line in build.stdout.splitlines() if ": error:" in line]
    print("\n".join(errors) if errors else build.stdout[-6000:], build.stderr[-3000:])
    sys.exit("a sample does not compile (see above: each error names the sample's file and line)")

bin_path = subprocess.run(
    ["swift", "build", "--package-path", str(package), "--show-bin-path"], capture_output=True, text=True
).stdout.strip()
for name, (where, expected, is_test_suite, runs_twice) in expectations.items():
    if runs_twice:
        # Two launches of one program, sharing a fresh temporary directory.
        with tempfile.TemporaryDirectory(prefix="snippet-") as folder:
            environment = dict(os.environ, TMPDIR=folder + "/")
            first = subprocess.run(
                [f"{bin_path}/{name}"], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                env=environment,
            )
            run = first
            if first.returncode == 0:
                run = subprocess.run(
                    [f"{bin_path}/{name}"], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                    env=environment,
                )
                run = subprocess.CompletedProcess(
                    run.args, run.returncode, first.stdout + run.stdout, first.stderr + run.stderr
                )
    else:
        run = subprocess.run(
            [f"{bin_path}/{name}"], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
        )
    lines = [line.strip() for line in run.stdout.splitlines()]
    if run.returncode != 0:
        failures += 1
        print(f"FAIL {where}: exit {run.returncode}\n{run.stdout}{run.stderr}")
    elif expected and lines[: len(expected)] != expected:
        failures += 1
        print(f"FAIL {where}: printed {lines}, the comments say {expected}")
    elif is_test_suite:
        summary = re.findall(r"Executed (\d+) tests?, with 0 failures", run.stdout + run.stderr)
        if not summary or summary[-1] == "0":
            failures += 1
            print(f"FAIL {where}: no test ran\n{run.stdout}{run.stderr}")
        else:
            print(f"ok   {where} ({summary[-1]} XCTest tests passed)")
    else:
        print(f"ok   {where} ({len(expected)} outputs checked{', run twice' if runs_twice else ''})")
if failures:
    sys.exit(f"{failures} sample(s) failed")
print(f"all {len(snippets)} samples compile and run; {len(manifests)} package manifest(s) load")
