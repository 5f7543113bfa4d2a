// Result<T>: a value or an error message, for I/O and hot paths where exceptions
// would hide which call failed. Errors read as one line naming what and where.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace weft {

struct Error {
  std::string message;
  // Optional machine-readable detail, e.g. an HTTP status; 0 when not applicable.
  int code = 0;
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}                 // NOLINT(implicit)
  Result(Error error) : v_(std::move(error)) {}             // NOLINT(implicit)

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const { return std::get<1>(v_); }
  const std::string& message() const { return error().message; }

  T value_or(T fallback) const { return ok() ? value() : std::move(fallback); }

 private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : err_(std::move(error)) {}           // NOLINT(implicit)
  bool ok() const { return !err_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Error& error() const { return *err_; }
  const std::string& message() const { return err_->message; }

 private:
  std::optional<Error> err_;
};

using Status = Result<void>;

inline Error make_error(std::string message, int code = 0) { return Error{std::move(message), code}; }

// Prefixes context onto an error as it travels up: "kubeconfig /x: field 'server': missing".
inline Error wrap(const Error& e, const std::string& context) {
  return Error{context + ": " + e.message, e.code};
}

}  // namespace weft
