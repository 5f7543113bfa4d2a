#include "kube/file_text.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

namespace weft::kube {

namespace {

// Closes the descriptor when the reading is done, whatever the path out.
struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

// Reads to the end: what cannot be mapped (a pipe, a character device) has no size to trust.
bool read_all(int fd, std::string& into) {
  char chunk[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n == 0) return true;
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    into.append(chunk, static_cast<size_t>(n));
  }
}

}  // namespace

Result<FileText> FileText::open(const std::string& path) {
  Descriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) return make_error(path + ": cannot open file");
  struct stat st {};
  if (::fstat(file.fd, &st) != 0) return make_error(path + ": cannot read file");
  if (S_ISDIR(st.st_mode)) return make_error(path + ": cannot read file (a directory)");
  FileText text;
  if (S_ISREG(st.st_mode) && st.st_size > 0) {
    const auto size = static_cast<size_t>(st.st_size);
    // MAP_POPULATE: the pages are mapped now, in one call, rather than fault by fault.
    void* mapped = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, file.fd, 0);
    if (mapped != MAP_FAILED) {
      text.mapped_ = static_cast<const char*>(mapped);
      text.size_ = size;
      return text;
    }
  }
  if (!read_all(file.fd, text.copy_)) return make_error(path + ": cannot read file");
  return text;
}

FileText::FileText(FileText&& other) noexcept
    : mapped_(std::exchange(other.mapped_, nullptr)), size_(std::exchange(other.size_, 0)), copy_(std::move(other.copy_)) {}

FileText& FileText::operator=(FileText&& other) noexcept {
  if (this != &other) {
    unmap();
    mapped_ = std::exchange(other.mapped_, nullptr);
    size_ = std::exchange(other.size_, 0);
    copy_ = std::move(other.copy_);
  }
  return *this;
}

FileText::~FileText() { unmap(); }

void FileText::unmap() noexcept {
  if (mapped_) ::munmap(const_cast<char*>(mapped_), size_);
  mapped_ = nullptr;
  size_ = 0;
}

}  // namespace weft::kube
