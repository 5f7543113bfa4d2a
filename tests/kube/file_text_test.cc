// A file's text mapped (a regular file) or read (what cannot be mapped): the same bytes.
#include "kube/file_text.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <thread>

#include "tests/support/process.h"

namespace weft::kube {
namespace {

TEST(FileText, ARegularFileIsSeenWhole) {
  weft::testing::TempDir dir;
  std::string bytes(300000, 'x');
  bytes[0] = '{';
  bytes[150000] = '\0';   // bytes, not a C string
  bytes.back() = '}';
  weft::testing::write_file(dir.file("big.json"), bytes);
  auto text = FileText::open(dir.file("big.json"));
  ASSERT_TRUE(text.ok()) << text.message();
  EXPECT_EQ(text->view(), bytes);
  FileText moved = std::move(*text);   // the view moves with it
  EXPECT_EQ(moved.view(), bytes);
}

TEST(FileText, AnEmptyFileIsAnEmptyText) {
  weft::testing::TempDir dir;
  weft::testing::write_file(dir.file("empty"), "");
  auto text = FileText::open(dir.file("empty"));
  ASSERT_TRUE(text.ok()) << text.message();
  EXPECT_TRUE(text->view().empty());
}

TEST(FileText, APipeIsReadToItsEnd) {
  weft::testing::TempDir dir;
  const std::string fifo = dir.file("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string sent(200000, 'p');   // more than one read's chunk
  std::thread writer([&] { std::ofstream(fifo) << sent; });
  auto text = FileText::open(fifo);
  writer.join();
  ASSERT_TRUE(text.ok()) << text.message();
  EXPECT_EQ(text->view(), sent);
}

TEST(FileText, WhatCannotBeReadIsNamed) {
  auto missing = FileText::open("/nonexistent/scenario.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.message(), "/nonexistent/scenario.json: cannot open file");
  weft::testing::TempDir dir;
  auto directory = FileText::open(dir.path());
  ASSERT_FALSE(directory.ok());
  EXPECT_NE(directory.message().find("cannot read file"), std::string::npos) << directory.message();
}

}  // namespace
}  // namespace weft::kube
