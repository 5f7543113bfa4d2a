// A file's text as one view, mapped rather than copied.
//
// A scenario of 100,000 pods is ~50 MiB of JSON. Read into a buffer, the kernel first
// zeroes that much fresh memory and then copies the file into it; mapped, the process
// reads the page cache's own pages. Files that cannot be mapped (a pipe, an empty file)
// are read into memory instead.
#pragma once

#include <string>
#include <string_view>

#include "common/result.h"

namespace weft::kube {

class FileText {
 public:
  // Errors: "<path>: cannot open file" / "<path>: cannot read file".
  static Result<FileText> open(const std::string& path);

  FileText(FileText&& other) noexcept;
  FileText& operator=(FileText&& other) noexcept;
  FileText(const FileText&) = delete;
  FileText& operator=(const FileText&) = delete;
  ~FileText();

  // Valid while this FileText lives. A mapped file changed by another process while it is
  // read is read as it is then (the view is not a snapshot).
  std::string_view view() const { return mapped_ ? std::string_view(mapped_, size_) : std::string_view(copy_); }

 private:
  FileText() = default;
  void unmap() noexcept;

  const char* mapped_ = nullptr;
  size_t size_ = 0;
  std::string copy_;   // the text of a file that was read, not mapped
};

}  // namespace weft::kube
