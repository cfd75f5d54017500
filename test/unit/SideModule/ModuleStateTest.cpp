//===- ModuleStateTest.cpp - Kernels that use module-scope variables ------===//
#include "ModuleState.h"

#include "baton/PTX/Parser.h"

#include <gtest/gtest.h>

using namespace baton;

namespace {

std::map<std::string, std::string> stateUsers(const std::string &Source) {
  auto R = ptx::parseModule(Source, "state.ptx");
  EXPECT_FALSE(R.Error) << R.Error->str();
  return R.Mod ? side::kernelsUsingModuleState(*R.Mod)
               : std::map<std::string, std::string>{};
}

// `impl` reads the program's counter; the kernel named NAME calls CALLEE.
std::string callerOf(const std::string &Name, const std::string &Callee) {
  return ".visible .entry " + Name +
         "()\n{\n .reg .b32 %r<2>;\n {\n .param .b32 pa;\n"
         " st.param.b32 [pa], 1;\n .param .b32 pr;\n call.uni (pr), " +
         Callee + ", (pa);\n ld.param.b32 %r1, [pr];\n }\n ret;\n}\n";
}

const char *Header = ".version 8.0\n.target sm_80\n.address_size 64\n"
                     ".global .align 4 .u32 counter;\n";
const char *Impl = ".func (.param .b32 r) impl(.param .b32 a)\n{\n"
                   " .reg .b32 %r<2>;\n ld.global.u32 %r1, [counter];\n"
                   " st.param.b32 [r], %r1;\n ret;\n}\n";

} // namespace

TEST(ModuleState, FollowsCallsToTheDefinition) {
  auto Users = stateUsers(std::string(Header) + Impl + callerOf("k", "impl"));
  ASSERT_EQ(Users.count("k"), 1u);
  EXPECT_NE(Users["k"].find("'counter' in impl"), std::string::npos)
      << Users["k"];
}

// nvcc declares a function before the kernels that call it and defines it
// after: the call names the declaration, whose body is the definition's.
TEST(ModuleState, FollowsCallsThroughAForwardDeclaration) {
  auto Users = stateUsers(std::string(Header) +
                          ".func (.param .b32 r) impl(.param .b32 a);\n" +
                          callerOf("k", "impl") + Impl);
  EXPECT_EQ(Users.count("k"), 1u);
}

// Through a chain of aliases, written in either order.
TEST(ModuleState, FollowsCallsThroughAliases) {
  for (const char *Aliases : {".alias top, mid;\n.alias mid, impl;\n",
                              ".alias mid, impl;\n.alias top, mid;\n"}) {
    auto Users = stateUsers(
        std::string(Header) + Impl +
        ".func (.param .b32 r) mid(.param .b32 a);\n"
        ".func (.param .b32 r) top(.param .b32 a);\n" +
        Aliases + callerOf("k", "top"));
    EXPECT_EQ(Users.count("k"), 1u) << Aliases;
  }
}
