#!/usr/bin/env python3
"""Packages the extension as a .vsix by hand: the zip `vsce package` makes
([Content_Types].xml, extension.vsixmanifest, extension/...), since vsce
(npm's @vscode/vsce) cannot be fetched offline. The extension has no npm
dependency (client.js speaks JSON-RPC itself), so the zip is complete.
Install it with `code --install-extension tile-0.1.0.vsix`.

usage: package.py [OUT_DIR]   (default: editors/vscode/dist)
"""

import json
import pathlib
import sys
import zipfile
from xml.sax.saxutils import escape

HERE = pathlib.Path(__file__).resolve().parent
FILES = ["package.json", "extension.js", "client.js",
         "language-configuration.json", "syntaxes/tile.tmLanguage.json",
         "README.md"]


def main():
    out = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "dist"
    manifest = json.loads((HERE / "package.json").read_text())
    name, version = manifest["name"], manifest["version"]
    publisher = manifest["publisher"]
    vsix_manifest = f"""<?xml version="1.0" encoding="utf-8"?>
<PackageManifest Version="2.0.0" xmlns="http://schemas.microsoft.com/developer/vsx-schema/2011">
  <Metadata>
    <Identity Language="en-US" Id="{escape(name)}" Version="{escape(version)}" Publisher="{escape(publisher)}"/>
    <DisplayName>{escape(manifest["displayName"])}</DisplayName>
    <Description xml:space="preserve">{escape(manifest["description"])}</Description>
    <Categories>{escape(",".join(manifest["categories"]))}</Categories>
    <Properties>
      <Property Id="Microsoft.VisualStudio.Code.Engine" Value="{escape(manifest["engines"]["vscode"])}"/>
    </Properties>
  </Metadata>
  <Installation>
    <InstallationTarget Id="Microsoft.VisualStudio.Code"/>
  </Installation>
  <Dependencies/>
  <Assets>
    <Asset Type="Microsoft.VisualStudio.Code.Manifest" Path="extension/package.json" Addressable="true"/>
    <Asset Type="Microsoft.VisualStudio.Services.Content.Details" Path="extension/README.md" Addressable="true"/>
  </Assets>
</PackageManifest>
"""
    content_types = """<?xml version="1.0" encoding="utf-8"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
  <Default Extension=".json" ContentType="application/json"/>
  <Default Extension=".js" ContentType="application/javascript"/>
  <Default Extension=".md" ContentType="text/markdown"/>
  <Default Extension=".vsixmanifest" ContentType="text/xml"/>
</Types>
"""
    out.mkdir(parents=True, exist_ok=True)
    vsix = out / f"{name}-{version}.vsix"
    with zipfile.ZipFile(vsix, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", content_types)
        archive.writestr("extension.vsixmanifest", vsix_manifest)
        for file in FILES:
            archive.write(HERE / file, "extension/" + file)
    print(vsix)


if __name__ == "__main__":
    main()
