#!/usr/bin/env python3
"""Compiles and runs every ```swift sample of the README and the DocC articles.

Each sample becomes an executable in a generated package (.build-snippets/) that depends on this
checkout's ActionStack library, so a sample can never drift from the API. A line of the form
`print(...)   // expected output` is also checked: the sample's printed lines must match those
comments, in order. Samples that are not meant to run use another fence (```text, ```sh).

Usage: Scripts/check-snippets.py
"""
import pathlib
import re
import subprocess
import sys

root = pathlib.Path(__file__).resolve().parent.parent
sources = [root / "README.md"] + sorted((root / "Sources/ActionStack/ActionStack.docc").glob("*.md"))
work = root / ".build-snippets"
package = work / "package"

snippets = []
for source in sources:
    text = source.read_text()
    for number, match in enumerate(re.finditer(r"```swift\n(.*?)```", text, re.S)):
        line = text[: match.start()].count("\n") + 1
        snippets.append((f"{source.name}:{line}", match.group(1)))

if not snippets:
    sys.exit("no swift samples found")

(package / "Sources").mkdir(parents=True, exist_ok=True)
targets = []
expectations = {}
for index, (where, code) in enumerate(snippets):
    name = f"snippet{index:02d}"
    target = package / "Sources" / name
    target.mkdir(parents=True, exist_ok=True)
    (target / "main.swift").write_text(f"// {where}\n" + code)
    expected = [m.group(1).strip() for m in re.finditer(r"^\s*print\(.*\)\s*//\s*(.+)$", code, re.M)]
    expectations[name] = (where, expected)
    targets.append(
        f'        .executableTarget(name: "{name}", dependencies: [.product(name: "ActionStack", package: "ActionStack")]),'
    )

(package / "Package.swift").write_text(
    "// swift-tools-version: 6.2\n"
    "import PackageDescription\n"
    "let package = Package(\n"
    '    name: "Snippets",\n'
    f'    dependencies: [.package(name: "ActionStack", path: "{root}")],\n'
    "    targets: [\n" + "\n".join(targets) + "\n    ]\n)\n"
)

print(f"building {len(snippets)} samples from {len(sources)} files")
build = subprocess.run(["swift", "build", "--package-path", str(package)], capture_output=True, text=True)
if build.returncode != 0:
    print(build.stdout[-6000:], build.stderr[-3000:])
    sys.exit("a sample does not compile (see above; the file and line are the first comment of each main.swift)")

bin_path = subprocess.run(
    ["swift", "build", "--package-path", str(package), "--show-bin-path"], capture_output=True, text=True
).stdout.strip()
failures = 0
for name, (where, expected) in expectations.items():
    run = subprocess.run([f"{bin_path}/{name}"], capture_output=True, text=True, timeout=60)
    lines = [line.strip() for line in run.stdout.splitlines()]
    if run.returncode != 0:
        failures += 1
        print(f"FAIL {where}: exit {run.returncode}\n{run.stdout}{run.stderr}")
    elif expected and lines[: len(expected)] != expected:
        failures += 1
        print(f"FAIL {where}: printed {lines}, the comments say {expected}")
    else:
        print(f"ok   {where} ({len(expected)} outputs checked)")
if failures:
    sys.exit(f"{failures} sample(s) failed")
print(f"all {len(snippets)} samples compile and run")
