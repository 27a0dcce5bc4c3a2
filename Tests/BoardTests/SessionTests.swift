// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack
import ActionStackBoardModel
import Foundation
import Testing

/// The command session: parsing, contexts, buttons driven by notifications, the picture.
@MainActor
struct SessionTests {
    /// The lines of the picture's frame, without the list of figures and the status lines.
    func picture(_ session: Session) -> [String] {
        Array(session.render().prefix { !$0.hasPrefix("figures:") })
    }

    @Test func eachCommandIsOneStepAndButtonsFollowTheActiveContext() {
        let session = Session()
        #expect(session.buttons.rendered == "(Undo) (Redo)")
        _ = session.handle("add 10 20")
        #expect(session.buttons.rendered == "[Undo Add Figure] (Redo)")
        _ = session.handle("move 1 30 5")
        #expect(session.buttons.undoTitle == "Undo Move to (30.0, 5.0)")
        _ = session.handle("color red")
        #expect(session.buttons.undoTitle == "Undo Move to (30.0, 5.0)", "board context still active")
        _ = session.handle("figure")
        #expect(session.buttons.rendered == "[Undo Change Color] (Redo)")
        let output = session.handle("undo")
        #expect(output.first == "Undo Change Color")
        #expect(session.buttons.rendered == "(Undo) [Redo Change Color]")
        #expect(session.board.figure(1)?.color == .black)
        _ = session.handle("board")
        #expect(session.buttons.rendered == "[Undo Move to (30.0, 5.0)] (Redo)")
        #expect(session.handle("undo").first == "Undo Move to (30.0, 5.0)")
        #expect(session.buttons.rendered == "[Undo Add Figure] [Redo Move to (30.0, 5.0)]")
    }

    @Test func buttonsAreRefreshedByTheStacksNotifications() {
        let session = Session()
        _ = session.handle("add 1 1")
        let before = session.buttons.refreshCount
        session.board.undoStack.undo()  // not through the session: only the notification tells
        #expect(session.buttons.refreshCount > before)
        #expect(session.buttons.rendered == "(Undo) [Redo Add Figure]")
    }

    nonisolated static let refusals: [(String, String)] = [
        ("frobnicate", "unknown command 'frobnicate'; type help for the list"),
        ("add 10", "usage: add X Y"),
        ("add ten 20", "x must be a number, not 'ten'"),
        ("add 0x10 5", "x must be a number, not '0x10'"),
        ("add 10 1e1", "y must be a number, not '1e1'"),
        ("add inf 1", "x must be a number, not 'inf'"),
        ("add nan 1", "x must be a number, not 'nan'"),
        ("add 1.234 1", "x must be a number, not '1.234'"),
        (
            "add 1234567890 1",
            "x is out of range: '1234567890' (from -999999999.99 to 999999999.99)"
        ),
        ("add 999999999.99 1", "(999999999.99, 1.0) is off the board"),
        ("add 1000 1", "(1000.0, 1.0) is off the board (x from 0 to 80, y from 0 to 40)"),
        ("add 10 40.01", "off the board"),
        ("add -0.5 1", "off the board"),
        ("move 7 1 1", "there is no figure #7 on the board"),
        ("move 1 1 1 1", "usage: move N X Y"),
        ("move 1 90 1", "off the board"),
        ("move x 1 1", "figure number must be a whole number, not 'x'"),
        ("move -1 1 1", "figure number must not be negative: '-1' (0 to 999999999)"),
        ("nudge 1 1", "usage: nudge N DX DY"),
        ("nudge 1 71 0", "(81.0, 20.0) is off the board"),
        ("nudge 1 0 -20.5", "off the board"),
        ("nudge 2 1 1", "there is no figure #2 on the board"),
        ("nudge 1 right 0", "dx must be a number, not 'right'"),
        ("nudge 1 0 0x1", "dy must be a number, not '0x1'"),
        ("remove x", "figure number must be a whole number, not 'x'"),
        ("remove 3", "there is no figure #3 on the board"),
        ("remove", "usage: remove N"),
        ("select 3", "there is no figure #3"),
        ("select 99999999999", "figure number is out of range: '99999999999' (0 to 999999999)"),
        ("select 1.0", "figure number must be a whole number, not '1.0' (0 to 999999999)"),
        ("color mauve", "unknown colour 'mauve' (one of: black, red, green, blue, yellow, orange, purple)"),
        ("color", "usage: color NAME"),
        ("radius -2", "the radius must not be negative"),
        ("radius 4.01", "the radius must be at most 4.0, half the figure's height (figures are 10.0 by 8.0)"),
        ("radius 1e9", "radius must be a number, not '1e9'"),
        ("radius", "usage: radius R"),
        ("redo", "nothing to redo in the board context"),
        ("undo now", "undo takes no arguments"),
        ("REDO now", "redo takes no arguments"),
        ("board 1", "board takes no arguments"),
        ("figure 1", "figure takes no arguments"),
        ("help me", "help takes no arguments"),
        ("quit now", "quit takes no arguments"),
        ("exit now", "exit takes no arguments"),
        ("history 9", "there is no node 9 in the board's history (type tree to see its nodes)"),
        ("history -1", "node number must not be negative: '-1' (0 to 999999999)"),
        ("add 99999999999 5", "x is out of range: '99999999999' (from -999999999.99 to 999999999.99)"),
        ("add 5 -99999999999.5", "y is out of range: '-99999999999.5' (from -999999999.99 to 999999999.99)"),
        ("remove #1234567890", "figure number is out of range: '#1234567890' (0 to 999999999)"),
        ("history 1 2", "usage: history [N]"),
        ("save a b", "usage: save [FILE]"),
        ("tree now", "tree takes no arguments"),
        ("goto", "usage: goto N"),
        ("goto 1 2", "usage: goto N"),
        ("goto 9", "there is no node 9 in the board's history (type tree to see its nodes)"),
        ("goto x", "node number must be a whole number, not 'x' (0 to 999999999)"),
        ("earlier ten", "earlier takes a number of changes (earlier 3) or a time (10s, 5m, 2h, 1d), not 'ten'"),
        ("later 0", "later goes at least 1 change or 1 second, not '0'"),
        ("earlier 1 2", "usage: earlier [N | Ns | Nm | Nh | Nd]"),
        ("branch 0", "no branch leaves node 1, where you are: there is nothing to redo here"),
        ("branch 5", "there is no node 5 in the board's history"),
        ("branch 1 2", "usage: branch [N]"),
    ]

    @Test(arguments: refusals)
    func aRefusedLineGetsOneErrorLineAndChangesNothing(command: String, message: String) throws {
        let session = Session()
        _ = session.handle("add 10 20")
        _ = session.handle("save")
        let before = session.render()
        let undoCount = session.board.undoStack.undoCount
        let output = session.handle(command)
        #expect(output.count == 1)
        let line = try #require(output.first)
        #expect(line.hasPrefix("error: "))
        #expect(line.contains(message), "\(line)")
        #expect(session.render() == before)
        #expect(session.board.undoStack.undoCount == undoCount)
        #expect(!session.board.hasUnsavedChanges)
        #expect(!session.isFinished)
    }

    @Test func refusalsInTheFigureContext() {
        let session = Session()
        #expect(session.handle("figure") == ["error: no figure is selected; use select N"])
        #expect(session.handle("color red") == ["error: no figure is selected; use select N"])
        #expect(session.handle("radius 1") == ["error: no figure is selected; use select N"])
        _ = session.handle("add 1 1")
        _ = session.handle("figure")
        #expect(session.handle("undo") == ["error: nothing to undo in the figure context"])
    }

    @Test func errorsQuoteAtMostFortyCharactersOfTheInput() throws {
        let session = Session()
        let long = String(repeating: "x", count: 5000)
        for command in [long, "add \(long) 1", "color \(long)", "remove \(long)"] {
            let line = try #require(session.handle(command).first)
            #expect(line.count < 160, "\(line.prefix(200))")
            let quoted = try #require(line.split(separator: "'", omittingEmptySubsequences: false).dropFirst().first)
            #expect(quoted.count == Session.longestQuote)
            #expect(quoted.hasSuffix("..."))
        }
        #expect(Session.quote("abc") == "'abc'")
        #expect(Session.quote("a\u{1B}[31mb") == "'a?[31mb'", "control characters never reach the terminal")
    }

    /// What the user typed is quoted as typed, with a tab as a space, and with the characters that
    /// would hide or rearrange text, or break the line, shown as "?".
    @Test func inputIsQuotedAsTypedAndSafely() {
        let session = Session()
        #expect(session.handle("FROB") == ["error: unknown command 'FROB'; type help for the list"])
        #expect(session.handle("Quit now") == ["error: quit takes no arguments"])
        #expect(Session.printable("add\t1 1") == "add 1 1")
        for hidden in ["\u{202E}", "\u{2066}", "\u{200B}", "\u{FEFF}", "\u{2028}", "\u{2029}", "\u{85}", "\u{7F}"] {
            #expect(
                Session.printable("a\(hidden)b") == "a?b", "U+\(String(hidden.unicodeScalars.first!.value, radix: 16))")
        }
        #expect(
            session.handle("color \u{202E}der") == [
                "error: unknown colour '?der' (one of: black, red, green, blue, yellow, orange, purple)"
            ])
        #expect(Session.printable("👨‍👩‍👧 می‌خواهم é") == "👨‍👩‍👧 می‌خواهم é", "joiners and accents stay")
    }

    @Test(arguments: [
        ("12", 12.0), ("12.5", 12.5), ("0.25", 0.25), (".5", 0.5), ("7.", 7.0), ("-3", -3.0), ("+3", 3.0),
    ])
    func decimalsAreRead(text: String, value: Double) {
        #expect(Session.decimal(text) == value)
    }

    /// The limit on numbers is about their size, not how they are written: leading zeros are
    /// fine, and every number taken is printed in plain decimal notation.
    @Test func leadingZerosAreFine() {
        #expect(Session.decimal("000000000001") == 1)
        #expect(Session.decimal("-0000000000999999999.99") == -999_999_999.99)
        #expect(Session.decimal("1000000000") == nil)
        #expect(Session.decimal("0001000000000") == nil)
        let session = Session()
        #expect(session.handle("add 000000000001 0000000000000000001.50").first == "added figure #1 at (1.0, 1.5)")
        #expect(session.handle("select 0000000001").first == "selected figure #1")
        #expect(session.handle("nudge 00000000000001 -000000000001 0").first == "nudged figure #1 to (0.0, 1.5)")
    }

    /// "-0" is zero, shown as 0.0: a minus sign on zero would make "-0.0" appear in answers,
    /// positions and step names.
    @Test func negativeZeroIsZero() throws {
        for text in ["-0", "-0.00", "-.0", "-0."] {
            let value = try #require(Session.decimal(text))
            #expect(value == 0 && value.sign == .plus, "\(text)")
        }
        let session = Session()
        _ = session.handle("add 0 5")
        #expect(session.handle("radius -0").first == "figure #1 already has corner radius 0.0")
        #expect(session.handle("move 1 -0 5").first == "figure #1 is already at (0.0, 5.0)")
        #expect(session.handle("move 1 -0.00 -0").first == "moved figure #1 to (0.0, 0.0)")
        #expect(session.buttons.undoTitle == "Undo Move to (0.0, 0.0)")
        #expect(session.handle("nudge 1 -0 -0").first == "figure #1 stays at (0.0, 0.0)")
        #expect(!session.render().joined().contains("-0"))
    }

    @Test(arguments: ["", "-", ".", "0x10", "1e9", "1E2", "inf", "nan", "1.234", "1,5", "١٢", "1.2.3", "--1", " 1"])
    func anythingElseIsNotADecimal(text: String) {
        #expect(Session.decimal(text) == nil)
    }

    @Test func figureContextAndSelectionFollowRemoval() {
        let session = Session()
        _ = session.handle("add 1 1")
        _ = session.handle("figure")
        #expect(session.context == .figure)
        _ = session.handle("board")
        _ = session.handle("remove 1")
        #expect(session.selectedID == nil)
        _ = session.handle("undo")
        #expect(session.board.figures.count == 1)
    }

    @Test func colourAndRadiusSayWhatTheyDid() {
        let session = Session()
        _ = session.handle("add 10 20")
        #expect(session.handle("color red").first == "figure #1 is now red")
        #expect(session.handle("colour RED").first == "figure #1 is already red")
        #expect(session.handle("radius 2.5").first == "figure #1 now has corner radius 2.5")
        #expect(session.handle("radius 2.5").first == "figure #1 already has corner radius 2.5")
        #expect(session.handle("move 1 10 20").first == "figure #1 is already at (10.0, 20.0)")
        #expect(session.handle("nudge 1 0 0").first == "figure #1 stays at (10.0, 20.0)")
        #expect(session.board.figure(1)?.undoStack.undoCount == 2)
        #expect(session.board.undoStack.undoCount == 1)
    }

    @Test func helpListsEveryCommandAndTheColours() {
        let commands = Session.help.split(separator: "\n").filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }
            .flatMap { $0.prefix(18).split(whereSeparator: { $0 == " " || $0 == "|" }) }
        for word in [
            "add", "move", "nudge", "remove", "select", "color", "radius", "undo", "redo", "history", "tree", "goto",
            "earlier", "later", "branch", "save",
        ] {
            #expect(commands.contains(Substring(word)), "\(word)")
        }
        for color in FigureColor.allCases { #expect(Session.help.contains(color.rawValue)) }
        // It fits an 80-column terminal without wrapping (a line of 80 would, in some terminals).
        for line in Session.help.split(separator: "\n") { #expect(line.count <= 79, "\(line)") }
    }

    /// `help` and the refusal of a radius too large state the limit alike, as every answer
    /// prints a radius ("corner radius 4.0"), and the figure's size as `help` gives it.
    @Test func helpAndTheRadiusRefusalStateTheSameLimit() throws {
        #expect(Session.help.contains("(0 to 4.0)"))
        #expect(Session.help.contains("figures are 10.0 by 8.0"))
        let session = Session()
        _ = session.handle("add 10 20")
        let refusal = try #require(session.handle("radius 4.01").first)
        #expect(refusal.contains("at most 4.0,") && refusal.contains("(figures are 10.0 by 8.0)"), "\(refusal)")
        #expect(session.handle("radius 4").first == "figure #1 now has corner radius 4.0")
    }

    /// The keys that edit the line at a terminal, as `help` and the README list them: the same
    /// keys in both, every key `LineEditor` acts on by name.
    @Test func helpAndTheReadmeListTheSameEditingKeys() throws {
        let readme = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../README.md").standardized,
            encoding: .utf8)
        func words(_ text: String) -> String { text.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        let keys = [
            "Left", "Right", "Home", "End", "Backspace", "Delete", "Ctrl-U", "Ctrl-K", "Ctrl-W", "Up", "Down", "Ctrl-C",
            "Ctrl-D",
        ]
        let helpText = words(Session.help)
        let readmeText = words(readme)
        let help = try #require(helpText.range(of: "at a terminal, ").map { helpText[$0.lowerBound...] })
        let readmeKeys = try #require(
            readmeText.range(of: "At a terminal the line is edited as in a shell: ").map {
                readmeText[$0.lowerBound...]
            })
        for key in keys {
            #expect(help.prefix(400).contains(key), "help: \(key)")
            #expect(readmeKeys.prefix(400).contains(key), "README: \(key)")
        }
        // Both say what Ctrl-D does: it is quit, which asks first when changes are unsaved.
        #expect(
            help.prefix(400).contains(
                "Ctrl-D on an empty line is quit (with unsaved changes, a second Ctrl-D or quit leaves)"))
        #expect(
            readmeKeys.prefix(500).contains(
                "as `quit` does (with unsaved changes it warns, and a second Ctrl-D or `quit` leaves)"))
    }

    @Test func renderShowsTheBoardTheSelectionAndTheButtons() {
        let session = Session()
        let lines = session.handle("add 10 20")
        #expect(lines.first == "added figure #1 at (10.0, 20.0)")
        #expect(lines.contains { $0.contains("[*1]") })
        #expect(lines.contains("selected: #1 at (10.0, 20.0), color black, corner radius 0.0"))
        #expect(lines.last == "board: [Undo Add Figure] (Redo)  * unsaved: board")
        _ = session.handle("radius 3")
        #expect(picture(session).contains { $0.contains("(*1)") }, "rounded figures are drawn with parentheses")
        _ = session.handle("add 40 8")
        #expect(picture(session).contains { $0.contains("[*2]") })
        #expect(picture(session).contains { $0.contains("(1)") }, "only the selected figure has a star")
    }

    /// Every coordinate the board accepts draws the whole label inside the frame, with its star.
    @Test(arguments: [(0.0, 0.0), (80, 0), (0, 40), (80, 40), (79.99, 39.99), (1, 20), (40, 20)])
    func figuresStayInsideTheFrame(x: Double, y: Double) throws {
        let session = Session()
        for _ in 0..<12 { _ = session.handle("add \(x) \(y)") }  // wide labels: [1+2+...+*12]
        _ = session.handle("add \(x) \(y)")
        let frame = picture(session)
        #expect(Set(frame.map(\.count)).count == 1, "every line is as wide as the frame")
        let inside = frame.dropFirst().dropLast().map { $0.dropFirst().dropLast() }
        #expect(inside.allSatisfy { !$0.contains("|") && !$0.contains("+-") })
        let row = try #require(inside.first { $0.contains("*13") })
        #expect(row.contains("[1+2+3+4+5+6+7+8+9+10+11+12+*13]"))
    }

    @Test func figuresInOneCellAreCountedAndTheSelectedOneIsMarked() {
        let session = Session()
        _ = session.handle("add 10 20")
        _ = session.handle("add 10 20")
        #expect(picture(session).contains { $0.contains("[1+*2]") })
        _ = session.handle("select 1")
        _ = session.handle("radius 1")
        #expect(picture(session).contains { $0.contains("(*1)+[2]") }, "mixed corners keep their own brackets")
        _ = session.handle("add 11 20")  // close enough to touch the others' label
        #expect(picture(session).contains { $0.contains("(1)+[2]+[*3]") })
    }

    @Test func manyFiguresInOneRowAreCountedWithTheSelectedOneNamed() {
        let session = Session()
        for x in stride(from: 0.0, through: 80, by: 2) { _ = session.handle("add \(x) 20") }
        _ = session.handle("select 7")
        let row = picture(session).first { $0.contains("more]") }
        #expect(row?.contains("[*7 and ") == true, "\(picture(session))")
    }

    @Test func coloursAreDrawnOnlyWhenAsked() {
        let plain = Session()
        _ = plain.handle("add 10 20")
        _ = plain.handle("color red")
        #expect(!plain.render().joined().contains("\u{1B}"), "piped output stays plain")

        let colored = Session(usesColor: true)
        _ = colored.handle("add 10 20")
        _ = colored.handle("color red")
        _ = colored.handle("add 50 20")
        _ = colored.handle("color orange")
        let text = colored.render().joined(separator: "\n")
        #expect(text.contains("\u{1B}[31m[1]\u{1B}[0m"))
        #expect(text.contains("\u{1B}[38;5;208m[*2]\u{1B}[0m"))
        #expect(text.contains("color \u{1B}[38;5;208morange\u{1B}[0m"))
    }

    @Test func historyListsTheStepsMarksWhereYouAreAndJumps() throws {
        let session = Session()
        _ = session.handle("add 1 1")
        _ = session.handle("move 1 5 5")
        _ = session.handle("save")
        _ = session.handle("move 1 9 9")
        let listing = try #require(session.handle("history").first)
        #expect(
            listing == """
                board history (goto N goes to node N; tree draws every branch):
                  0  (start)
                  1  Add Figure
                  2  Move to (5.0, 5.0)  saved
                  3  Move to (9.0, 9.0)  <- you are here
                """)
        #expect(!listing.split(separator: "\n").contains { $0.hasPrefix(">") }, "the prompt's sign is not a marker")
        let jump = session.handle("history 1")
        #expect(jump.first == "went to node 1: undid 2 steps")
        #expect(session.board.figure(1)?.position == Point(x: 1, y: 1))
        #expect(jump.last == "board: [Undo Add Figure] [Redo Move to (5.0, 5.0)]  * unsaved: board")
        let after = try #require(session.handle("history").first)
        #expect(after.contains("  1  Add Figure          <- you are here"))
        #expect(after.contains("  2  Move to (5.0, 5.0)  saved, (redo)"))
        #expect(after.contains("  3  Move to (9.0, 9.0)  (redo)"))
        #expect(session.handle("history 2").last == "board: [Undo Move to (5.0, 5.0)] [Redo Move to (9.0, 9.0)]")
        #expect(session.handle("history 2").first == "already at node 2")
    }

    /// A figure that left the board comes back with its own history, its saved row included.
    /// Leaving by a removal or by undoing (then redoing) its addition alike.
    @Test(arguments: [["remove 1", "undo"], ["undo", "redo"]])
    func aFigureBackOnTheBoardHasItsHistory(leaveAndReturn: [String]) throws {
        let session = Session()
        for command in ["add 10 20", "save", "color red"] + leaveAndReturn + ["select 1", "figure"] {
            _ = session.handle(command)
        }
        #expect(session.board.figure(1)?.color == .red)
        #expect(session.render().last == "figure #1: [Undo Change Color] (Redo)  * unsaved: figure #1")
        let listing = try #require(session.handle("history").first)
        #expect(listing.contains("  0  (start)       saved"), "\(listing)")
        #expect(listing.contains("  1  Change Color  <- you are here"), "\(listing)")
        _ = session.handle("undo")
        #expect(session.board.figure(1)?.color == .black)
    }

    @Test func saveClearsTheUnsavedMarkUntilTheNextChange() {
        let session = Session()
        #expect(session.render().last == "board: (Undo) (Redo)")
        _ = session.handle("add 1 1")
        #expect(session.render().last?.hasSuffix("* unsaved: board") == true)
        #expect(session.handle("save").last == "board: [Undo Add Figure] (Redo)")
        // A figure's change counts, and the status line says whose history it is in.
        #expect(
            session.handle("color red").last == "board: [Undo Add Figure] (Redo)  * unsaved: figure #1",
            "a figure's change counts")
        _ = session.handle("figure")
        #expect(session.handle("undo").last == "figure #1: (Undo) [Redo Change Color]", "back to the saved state")
    }

    @Test func theEditMenuGroupFollowsTheContextAndTheFiguresOnTheBoard() {
        let session = Session()
        _ = session.handle("add 1 1")
        _ = session.handle("color red")
        #expect(session.edit.activeStack === session.board.undoStack)
        _ = session.handle("figure")
        #expect(session.edit.activeStack === session.board.figure(1)?.undoStack)
        #expect(session.edit.undoMenuItemTitle == "Undo Change Color")
        #expect(session.edit.stacks.count == 2)
        _ = session.handle("board")
        _ = session.handle("remove 1")
        #expect(session.edit.stacks.count == 1, "a figure off the board leaves the Edit menu")
    }

    @Test func quitFinishesTheSession() {
        let session = Session()
        #expect(session.handle("quit") == ["bye"])
        #expect(session.isFinished)
    }

    @Test func quitWithUnsavedChangesWarnsAndQuitsWhenRepeated() {
        let session = Session()
        _ = session.handle("add 10 20")
        #expect(
            session.handle("quit") == [
                "the board has unsaved changes; type quit again to quit without saving, or save first"
            ])
        #expect(!session.isFinished)
        #expect(session.handle("exit") == ["bye"], "right after the warning, quit (or exit) quits")
        #expect(session.isFinished)
    }

    @Test func anotherCommandAfterTheWarningAsksAgain() {
        let session = Session()
        _ = session.handle("add 10 20")
        _ = session.handle("quit")
        _ = session.handle("history")
        #expect(session.handle("quit").first?.hasPrefix("the board has unsaved changes") == true)
        #expect(!session.isFinished)
        _ = session.handle("save")
        #expect(session.handle("quit") == ["bye"], "once saved, quit quits at once")
    }

    @Test func theFiguresLineStaysShort() {
        let session = Session()
        for x in stride(from: 2, through: 78, by: 4) { _ = session.handle("add \(x) 20") }
        let legend = session.render().first { $0.hasPrefix("figures: ") } ?? ""
        #expect(legend.count <= BoardPicture.longestLegend, "\(legend)")
        #expect(legend.hasSuffix(", and 18 more"), "20 figures, two listed: \(legend)")
        #expect(legend.hasPrefix("figures: #1 (2.0, 20.0) black r=0.0, #2 (6.0, 20.0) black r=0.0"), "\(legend)")
    }
}
