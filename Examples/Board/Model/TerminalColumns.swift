// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

/// How many columns of a terminal a character takes: what `wcwidth` answers, without the C
/// library, whose answer depends on the locale the program runs in (in the "C" locale it knows no
/// wide character at all). The line editor places its cursor and scrolls its line with it: a
/// Chinese character or an emoji takes two columns, and a count of characters would put the cursor
/// too far left and let the line wrap onto a second row, which the next redraw leaves behind.
///
/// The rules are those terminals follow:
/// - 0 for a character that is only a mark to put on the one before it (a combining accent, a
///   variation selector, a zero-width joiner: at the start of a line, one makes a character of
///   its own), and for the controls and invisible format characters, which the board prints as
///   "?" (`Session.printable`) and never as they are;
/// - 2 for the East Asian Wide and Fullwidth characters (Chinese, Japanese and Korean characters,
///   fullwidth forms) and for an emoji shown as a picture (its default presentation, or a text
///   symbol followed by U+FE0F, the emoji variation selector);
/// - 1 for every other character, whatever marks it carries ("é" written as "e" and U+0301 is one
///   column).
///
/// Terminals differ on characters added to Unicode recently; these are the widths of the common
/// ones, which is what keeps the cursor in place.
public enum TerminalColumns: Sendable {
    /// The columns `character` takes (0, 1 or 2).
    public static func width(of character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first, !isZeroWidth(first) else { return 0 }
        if isWide(first) { return 2 }
        if first.properties.isEmoji {
            // U+FE0E asks for the text presentation, U+FE0F for the picture.
            if scalars.contains("\u{FE0E}") { return 1 }
            if first.properties.isEmojiPresentation || scalars.contains("\u{FE0F}") { return 2 }
        }
        return 1
    }

    /// The columns `characters` take together.
    public static func width(of characters: some Sequence<Character>) -> Int {
        characters.reduce(0) { $0 + width(of: $1) }
    }

    /// Whether `scalar` takes no column of its own: a mark that goes on the character before it,
    /// or an invisible control or format character.
    static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .control, .format: return true
        default: break
        }
        // The vowels and final consonants of Hangul jamo join the initial consonant before them
        // into one syllable.
        switch scalar.value {
        case 0x1160...0x11FF, 0xD7B0...0xD7FF: return true
        default: return false
        }
    }

    /// Whether `scalar` is East Asian Wide or Fullwidth: two columns in every terminal.
    static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1100...0x115F,  // Hangul jamo initial consonants
            0x2329...0x232A,  // angle brackets
            0x2E80...0x303E,  // CJK radicals, Kangxi radicals, ideographic description, CJK punctuation
            0x3041...0x33FF,  // hiragana, katakana, bopomofo, Hangul compatibility jamo, CJK enclosed
            0x3400...0x4DBF,  // CJK unified ideographs extension A
            0x4E00...0x9FFF,  // CJK unified ideographs
            0xA000...0xA4CF,  // Yi
            0xA960...0xA97F,  // Hangul jamo extended A
            0xAC00...0xD7A3,  // Hangul syllables
            0xF900...0xFAFF,  // CJK compatibility ideographs
            0xFE10...0xFE19,  // vertical forms
            0xFE30...0xFE6F,  // CJK compatibility forms, small form variants
            0xFF00...0xFF60,  // fullwidth forms
            0xFFE0...0xFFE6,  // fullwidth signs
            0x16FE0...0x16FE4,  // ideographic symbols
            0x17000...0x18CFF,  // Tangut, Khitan
            0x1B000...0x1B2FF,  // kana supplement and extensions, Nushu
            0x1F200...0x1F2FF,  // enclosed ideographic supplement
            0x20000...0x2FFFD,  // CJK unified ideographs extensions B to F
            0x30000...0x3FFFD:  // CJK unified ideographs extensions G and H
            return true
        default:
            return false
        }
    }
}
