#include "report/format.h"

#include <gtest/gtest.h>
#include <regex>

using namespace kdelay;

TEST(Format, ThousandsSeparators)
{
    EXPECT_EQ(with_commas(0), "0");
    EXPECT_EQ(with_commas(999), "999");
    EXPECT_EQ(with_commas(1000), "1,000");
    EXPECT_EQ(with_commas(184191520), "184,191,520");
    EXPECT_EQ(with_commas(18446744073709551615ull), "18,446,744,073,709,551,615");
}

TEST(Format, TimestampIsLocalIsoThenUtc)
{
    setenv("TZ", "Europe/Amsterdam", 1);
    tzset();
    // 2023-06-08 10:17:22.725127 UTC
    const auto t = std::chrono::system_clock::time_point(std::chrono::microseconds(1686219442725127));
    EXPECT_EQ(timestamp_suffix(t), "@2023-06-08T12:17:22.725127 (10:17:22 UTC)");
    const auto whole = std::chrono::system_clock::time_point(std::chrono::seconds(1686219442));
    EXPECT_EQ(timestamp_suffix(whole), "@2023-06-08T12:17:22 (10:17:22 UTC)");
    unsetenv("TZ");
    tzset();
}

TEST(Format, PrintableEscapesControlsBackslashesAndWhatIsNotUtf8)
{
    EXPECT_EQ(printable("ovs-vswitchd"), "ovs-vswitchd");
    EXPECT_EQ(printable("ev\x1b[31mil\n# STALL"), "ev\\x1b[31mil\\x0a# STALL");
    EXPECT_EQ(printable(std::string("a\0b\tc\x7f", 6)), "a\\x00b\\x09c\\x7f");
    EXPECT_EQ(printable("C:\\x1b"), "C:\\x5cx1b") << "a backslash cannot pass for an escape";
    EXPECT_EQ(printable("na\xc3\xafve \xe2\x82\xac \xf0\x9f\x98\x80"), "na\xc3\xafve \xe2\x82\xac \xf0\x9f\x98\x80");
    EXPECT_EQ(printable("\xc2\x9b" "2J"), "\\xc2\\x9b2J") << "C1 control CSI, as UTF-8";
    EXPECT_EQ(printable("\xff\xfe"), "\\xff\\xfe");
    EXPECT_EQ(printable("\xc3"), "\\xc3") << "cut short";
    EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf") << "overlong '/'";
    EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80") << "a surrogate";
    EXPECT_EQ(printable("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80") << "past U+10FFFF";
    EXPECT_EQ(printable(""), "");
}

// On the main before it these passed: a thread name could end root's line
// (U+2028) or turn the rest of it around (U+202E) in a terminal or editor.
TEST(Format, PrintableEscapesLineSeparatorsAndBidirectionalControls)
{
    EXPECT_EQ(printable("a\xe2\x80\xa8" "b"), "a\\xe2\\x80\\xa8b") << "U+2028";
    EXPECT_EQ(printable("a\xe2\x80\xa9" "b"), "a\\xe2\\x80\\xa9b") << "U+2029";
    EXPECT_EQ(printable("\xe2\x80\xae" "kcatta"), "\\xe2\\x80\\xaekcatta") << "U+202E, right-to-left override";
    for (const char* c : {"\xe2\x80\xaa", "\xe2\x80\xab", "\xe2\x80\xac", "\xe2\x80\xad", "\xe2\x81\xa6",
                          "\xe2\x81\xa7", "\xe2\x81\xa8", "\xe2\x81\xa9", "\xe2\x80\x8e", "\xe2\x80\x8f",
                          "\xd8\x9c"})
        EXPECT_EQ(printable(c).find('\xe2'), std::string::npos) << printable(c);
    EXPECT_EQ(printable("\xe2\x80\xa7 \xe2\x80\xaf \xe2\x81\xa5"), "\xe2\x80\xa7 \xe2\x80\xaf \xe2\x81\xa5")
        << "their neighbours are printable";
}
